#!/bin/bash
# sr-mcp refuses a directory whose code runs when another local user owns
# it or something in it: an --environment root file system, a file deep in
# its usr/, the runners directory, a runner. The attacker is nobody and
# the victim the unprivileged test account (tests/89-mcp-code-trust.t has
# the rest, as the account alone can play it); tests/run runs this file
# as root.
. "$(dirname "$0")/../lib.sh"

need_two_users

chmod 0755 "$T"
mkdir "$T/bin"
cp "$SR_ROOT/sr-mcp/sr-mcp" "$T/bin/"
mkdir "$T/bin/runners" && cp "$SR_ROOT/sr-mcp/runners/bash" "$T/bin/runners/"
chmod 0755 "$T/bin" "$T/bin/sr-mcp" "$T/bin/runners" "$T/bin/runners/bash"
as() { local u=$1; shift; runuser -u "$u" -- "$@"; }
mkdir -m 0700 "$T/state" && chown "$victim" "$T/state"
mcp() { run as "$victim" env -i PATH=/usr/bin:/bin "$T/bin/sr-mcp" --state-dir "$T/state" "$@" </dev/null; }

mkdir -p "$T/env/usr/bin" "$T/env/etc"
mcp --environment "e=$T/env"
is "$rc" 0 "control: a root file system root owns is taken"

chown "$attacker" "$T/env"
mcp --environment "e=$T/env"
is "$rc" 111 "one the attacker owns is refused (exit 111)"
like "$err" "^sr-mcp: fatal: refusing --environment e=$T/env: $T/env is owned by uid $auid \\($attacker\\), not by uid $vuid \\($victim\\) or root" \
	"one line naming it, its owner and the victim"
chown root "$T/env"

touch "$T/env/usr/bin/python3" && chown "$attacker" "$T/env/usr/bin/python3"
mcp --environment "e=$T/env"
is "$rc" 111 "one with a program the attacker owns, mode 0644 (the owner can chmod it) is refused"
like "$err" "$T/env/usr/bin/python3 is owned by uid $auid \\($attacker\\).*chown it to root or to you" \
	"naming the file and the fix"
chown root "$T/env/usr/bin/python3"

mkdir -m 0755 "$T/theirs" && chown "$attacker" "$T/theirs" && mv "$T/env" "$T/theirs/env"
mcp --environment "e=$T/theirs/env"
is "$rc" 111 "a root file system inside a directory the attacker owns (who can swap it) is refused"
like "$err" "$T/theirs is owned by uid $auid" "naming the directory above"
mv "$T/theirs/env" "$T/env"

chown "$attacker" "$T/bin/runners/bash"
run as "$victim" env -i PATH=/usr/bin:/bin "$T/bin/sr-mcp" --state-dir "$T/state" </dev/null
is "$rc" 111 "a runner the attacker owns is refused"
like "$err" "refusing the runners directory $T/bin/runners: $T/bin/runners/bash is owned by uid $auid" "naming it"
chown root "$T/bin/runners/bash"
chown "$attacker" "$T/bin/runners"
run as "$victim" env -i PATH=/usr/bin:/bin "$T/bin/sr-mcp" --state-dir "$T/state" </dev/null
is "$rc" 111 "a runners directory the attacker owns is refused"
chown root "$T/bin/runners"
run as "$victim" env -i PATH=/usr/bin:/bin "$T/bin/sr-mcp" --state-dir "$T/state" </dev/null
is "$rc" 0 "control: root's runners are taken"

# What the typescript runner binds is trusted too: the compiler and
# Node.js's types (npm's global @types/node). In a mount namespace of its
# own (nothing of the host's changes), a copy of the types is bound over
# that directory, first root's, then with a file the attacker owns.
types=
for d in /usr/lib/node_modules/@types/node /usr/local/lib/node_modules/@types/node; do
	[ -f "$d/index.d.ts" ] && { types=$d; break; }
done
if [ -z "$types" ] || ! unshare -m true 2>/dev/null; then
	skip "Node.js's types the attacker owns are refused" "${types:+no mount namespace here}${types:-no @types/node here (make install-env)}"
else
	cp "$SR_ROOT/sr-mcp/runners/typescript" "$T/bin/runners/" && chmod 0755 "$T/bin/runners/typescript"
	mkdir -m 0755 "$T/types" && cp -r "$types/." "$T/types/" && chmod -R a+rX,go-w "$T/types"
	over() {
		run unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh \
			"$T/types" "$types" runuser -u "$victim" -- env -i PATH=/usr/bin:/bin "$T/bin/sr-mcp" \
			--state-dir "$T/state" </dev/null
	}
	over
	is "$rc" 0 "control: with the typescript runner, a copy of Node.js's types root owns, bound over them, is taken"
	chown "$attacker" "$T/types/fs.d.ts"
	over
	is "$rc" 111 "Node.js's types with a file the attacker owns are refused (exit 111)"
	like "$err" "refusing the types of Node.js $types \\(the typescript runner binds it\\): $types/fs.d.ts is owned by uid $auid" \
		"naming the file"
	rm "$T/bin/runners/typescript"
	over
	is "$rc" 0 "control: without the typescript runner they are not looked at"
fi
done_testing
