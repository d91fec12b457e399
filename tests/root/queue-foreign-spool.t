#!/bin/bash
# sr-queue refuses a spool another user made. The attack: under a
# world-writable directory (like /tmp) the attacker creates the spool
# first, with subdirectories open to all, and renames a job of theirs into
# queue/; the victim's worker would run it as the victim. Here the attacker
# is nobody and the victim the unprivileged test account; tests/run runs
# this file as root (SR_QUEUE_BIN overrides the binary under test).
. "$(dirname "$0")/../lib.sh"

need_two_users

# Both users must reach the binary and a shared sticky directory, as /tmp is.
chmod 0755 "$T"
mkdir "$T/bin"
cp "${SR_QUEUE_BIN:-$SR_ROOT/sr-queue/sr-queue}" "$T/bin/sr-queue"
chmod 0755 "$T/bin" "$T/bin/sr-queue"
pub=$T/pub
mkdir -m 1777 "$pub"
cd "$pub" || exit 1
as() { local u=$1; shift; runuser -u "$u" -- "$@"; }
Q=$T/bin/sr-queue

# --- the attacker's preparation -------------------------------------------------
# A job of the attacker's (made in a spool of their own, so its format is
# right), left readable and writable by all, renamed into a spool that the
# attacker made first where the victim expects theirs.
marker=$pub/marker
as "$attacker" sh -c "umask 077; '$Q' submit '$pub/mine-$attacker' -- sh -c 'id -u > \"$marker\"'" \
	>"$T/aid" || exit 1
aid=$(cat "$T/aid")
as "$attacker" sh -c "umask 000
	mkdir -m 0777 '$pub/q' && for d in tmp queue run done cancel; do mkdir -m 0777 '$pub/q/'\$d; done
	chmod -R a+rwX '$pub/mine-$attacker/queue/$aid'
	mv '$pub/mine-$attacker/queue/$aid' '$pub/q/queue/$aid'"
is "$(stat -c %U "$pub/q" "$pub/q/queue/$aid" | sort -u)" "$attacker" \
	"setup: the spool and the planted job are the attacker's"

# --- the victim's worker refuses it ----------------------------------------------------
run as "$victim" "$Q" run "$pub/q" --drain
is "$rc" 111 "the victim's worker refuses a spool the attacker made (exit 111)"
like "$err" "^sr-queue: fatal: refusing spool $pub/q: owned by uid $auid, not $vuid\$" \
	"one line naming the spool, its owner and the victim"
ok "the planted job did not run" test ! -e "$marker"
is "$(ls "$pub/q/queue")" "$aid" "the planted job is left where it was"

run as "$victim" "$Q" submit "$pub/q" -- true
is "$rc" 111 "nor does the victim submit into it (the attacker could read or change the job)"
is "$(ls "$pub/q/queue")" "$aid" "nothing was stored"

# A subdirectory only: the victim's spool was open for a while (made with
# a umask of 0, say), the attacker made its queue/ then, and the victim
# has closed the spool since. The spool itself is fine; queue/ is not.
as "$victim" sh -c "umask 000; mkdir -m 0777 '$pub/q2'" || exit 1
id2=$(as "$attacker" "$Q" submit "$pub/mine-$attacker" -- sh -c "id -u > '$marker'")
as "$attacker" sh -c "umask 000; mkdir -m 0777 '$pub/q2/queue'
	chmod -R a+rwX '$pub/mine-$attacker/queue/$id2'
	mv '$pub/mine-$attacker/queue/$id2' '$pub/q2/queue/$id2'"
as "$victim" chmod 0700 "$pub/q2"
run as "$victim" "$Q" run "$pub/q2" --drain
is "$rc" 111 "a spool whose queue/ the attacker made is refused (exit 111)"
like "$err" "^sr-queue: fatal: refusing spool $pub/q2/queue: owned by uid $auid, not $vuid\$" \
	"one line naming queue/ and its owner"
ok "the planted job did not run" test ! -e "$marker"

# Root is no exception: a worker run by root does not serve a user's spool.
run "$Q" list "$pub/mine-$attacker"
is "$rc" 111 "root refuses a spool owned by another user"
like "$err" "refusing spool $pub/mine-$attacker: owned by uid $auid, not 0" "and says so"

# --- control: the victim's own spool works --------------------------------------
vmark=$pub/victim-marker
vid=$(as "$victim" "$Q" submit "$pub/mine-$victim" -- sh -c "id -u > '$vmark'")
like "$vid" '^[0-9a-f]{32}$' "the victim submits into a spool of their own"
is "$(stat -c '%U %a' "$pub/mine-$victim" "$pub/mine-$victim/queue" | sort -u)" "$victim 700" \
	"which sr-queue created 0700"
run as "$victim" "$Q" run "$pub/mine-$victim" --drain
is "$rc" 0 "the victim's worker runs it"
is "$(cat "$vmark" 2>/dev/null)" "$vuid" "as the victim"
ok "and still not the attacker's job" test ! -e "$marker"
done_testing
