#!/bin/bash
# sr-mcp refuses a state directory that another local user made or can
# swap. The attack: in a shared sticky directory (as /tmp) the attacker
# makes the directory the victim's sr-mcp will use (--state-dir, or
# XDG_STATE_HOME), open to all; the victim's sr-mcp would keep its
# workspaces and the code of every run there, for the attacker to read and
# change. Here the attacker is nobody and the victim the unprivileged test
# account; tests/run runs this file as root.
. "$(dirname "$0")/../lib.sh"

need_two_users

chmod 0755 "$T"
mkdir "$T/bin"
cp "$SR_ROOT/sr-mcp/sr-mcp" "$T/bin/"
mkdir "$T/bin/runners" && cp "$SR_ROOT/sr-mcp/runners/bash" "$T/bin/runners/"  # sr-mcp needs one
chmod 0755 "$T/bin" "$T/bin/sr-mcp" "$T/bin/runners" "$T/bin/runners/bash"
pub=$T/pub
mkdir -m 1777 "$pub"
as() { local u=$1; shift; runuser -u "$u" -- "$@"; }
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"ping"}' >"$T/ping"
chmod 0644 "$T/ping"
mcp() { # VAR=VALUE... -- ARGS...: the victim's sr-mcp, given one ping
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	run as "$victim" env -i PATH=/usr/bin:/bin "${envs[@]}" "$T/bin/sr-mcp" "$@" <"$T/ping"
}

# the attacker's directory, open to all, where the victim expects theirs
as "$attacker" mkdir -m 0777 "$pub/state"
# (the default is $XDG_STATE_HOME/sr: made by the victim inside the attacker's directory)
mcp HOME="$pub" XDG_STATE_HOME="$pub/state" --
is "$rc" 111 "the victim's sr-mcp refuses a state directory inside one the attacker owns (exit 111)"
like "$err" "^sr-mcp: fatal: refusing state directory $pub/state/sr: $pub/state is owned by uid $auid \\($attacker\\), not by uid $vuid \\($victim\\) or root" \
	"one line naming the directory, its owner and the victim"
ok "nothing was made in it" test -z "$(ls -A "$pub/state")"

as "$attacker" mkdir -m 0755 "$pub/locked"
mcp HOME="$pub" -- --state-dir "$pub/locked"
is "$rc" 111 "a state directory the attacker made, even closed to others, is refused"
like "$err" "$pub/locked is owned by uid $auid \\($attacker\\), not by uid $vuid \\($victim\\);" \
	"naming its owner"

# the victim's own directory, but in one the attacker owns (who can rename it away)
as "$attacker" mkdir -m 0755 "$pub/theirs"
mkdir -m 0700 "$pub/theirs/mine" && chown "$victim" "$pub/theirs/mine"
mcp HOME="$pub" -- --state-dir "$pub/theirs/mine"
is "$rc" 111 "the victim's directory inside one the attacker owns is refused"
like "$err" "$pub/theirs is owned by uid $auid" "naming the directory above and its owner"

# control: the victim's own directory in the shared sticky one
as "$victim" mkdir -m 0700 "$pub/own"
mcp HOME="$pub" -- --state-dir "$pub/own/state"
is "$rc" 0 "control: the victim's own directory is taken"
like "$out" '"result"' "control: and sr-mcp answers"
done_testing
