#!/bin/bash
# Every directory whose code runs is trusted as the state directory is
# (lib/trust.c): an --environment root, the runners directory and every
# runner in it. Another user who owns one, can write it or anything in
# the parts runs use, or can swap it (by writing a directory above it)
# would choose the programs that run on the user's workspaces, so sr-mcp
# refuses it at start, naming the first entry and the fix; and before
# each run it checks again that the path still leads to the directory it
# checked (one renamed away and replaced after start is refused). As the
# test account cannot give a file to another user, "another user" is
# played by the group and others write bits, by root's /tmp, and by a
# directory above that everyone may write; tests/root/mcp-foreign-state.t
# has directories another account owns.
. "$(dirname "$0")/lib.sh"
need_userns

S="$T/state"
steps() { run python3 "$SR_ROOT/tests/mcp-steps.py" sr-mcp --state-dir "$S" "$@"; }
start() { run sr-mcp --state-dir "$S" "$@" </dev/null; }

# A root file system of the host's bash alone: enough for the bash runner.
mini_rootfs() { # DIR WORD
	local d=$1 f
	mkdir -p "$d/usr/bin" "$d/usr/lib/x86_64-linux-gnu" "$d/usr/lib64" "$d/etc"
	cp /usr/bin/bash /usr/bin/cat "$d/usr/bin/"
	for f in $( (ldd /usr/bin/bash; ldd /usr/bin/cat) | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u); do
		cp -L "$f" "$d/usr/lib/x86_64-linux-gnu/"
	done
	cp -L /lib64/ld-linux-x86-64.so.2 "$d/usr/lib64/"
	ln -s usr/bin "$d/bin"; ln -s usr/lib "$d/lib"; ln -s usr/lib64 "$d/lib64"
	mkdir -p "$d/usr/share"
	echo "mini $2" >"$d/usr/share/which"
	chmod -R go-w "$d"
}
[ "$(uname -m)" = x86_64 ] || skip_all "the test's root file system is copied from an x86_64 host"

mkdir -m 0755 "$T/e"
mini_rootfs "$T/e/good" first
steps --environment "mini=$T/e/good" -- 'run bash @mini cat /usr/share/which'
is "$out" "ok mini first" "control: a root file system of one's own, written by nobody else, runs code"

# --- refused at start: the root, what runs use in it, the path above it -------------
chmod g+w "$T/e/good"
start --environment "mini=$T/e/good"
is "$rc" 111 "a root file system its group can write is refused at start"
like "$err" "^sr-mcp: fatal: refusing --environment mini=$T/e/good: $T/e/good is writable by its group" "one line naming it"
chmod g-w "$T/e/good"

chmod o+w "$T/e/good/usr/bin"
start --environment "mini=$T/e/good"
is "$rc" 111 "one with a world-writable usr/bin is refused"
like "$err" "$T/e/good/usr/bin is writable by others \\(mode 0757.*chmod go-w $T/e/good/usr/bin" \
	"naming the entry and the fix"
chmod o-w "$T/e/good/usr/bin"

chmod 1777 "$T/e/good/usr/lib"
start --environment "mini=$T/e/good"
is "$rc" 111 "a world-writable sticky directory in the tree is refused too (anyone may add a module there)"
chmod 0755 "$T/e/good/usr/lib"

f=$(find "$T/e/good/usr/lib" -name 'libc.so*' -type f | head -n 1)
chmod g+w "$f"
start --environment "mini=$T/e/good"
is "$rc" 111 "a group-writable library deep in the tree is refused"
like "$err" "$f is writable by its group" "naming the file"
chmod g-w "$f"

chmod 1777 "$T/e/good"
start --environment "mini=$T/e/good"
is "$rc" 111 "a root file system everyone may write is refused, sticky or not (anyone could add to it)"
like "$err" "refusing --environment mini=$T/e/good: $T/e/good is writable by others \\(mode 01777" "naming it"
chmod 0755 "$T/e/good"

mkdir -m 0777 "$T/open" && chmod 0777 "$T/open"
mini_rootfs "$T/open/root" open
start --environment "mini=$T/open/root"
is "$rc" 111 "one inside a directory everyone may write (no sticky bit: it can be swapped) is refused"
like "$err" "$T/open is writable by others" "naming the directory above"
mkdir -m 0700 "$T/sticky" && chmod 1777 "$T/sticky" && mkdir -m 0755 "$T/sticky/mine"
mini_rootfs "$T/sticky/mine/root" sticky
start --environment "mini=$T/sticky/mine/root"
is "$rc" 0 "control: one of one's own in a sticky directory (as /tmp) is taken: nobody else can rename it"

mkdir -p "$T/e/good/var/tmp" && chmod 1777 "$T/e/good/var/tmp"
start --environment "mini=$T/e/good"
is "$rc" 0 "control: a world-writable var/tmp, which runs never see, is no reason to refuse"

# sr-jail follows links in etc/ on its way to the files it binds there:
# one that leads into the image's world-writable tmp/ would bind what
# anyone put there
mkdir -p "$T/e/good/tmp/ssl" && chmod 1777 "$T/e/good/tmp" && chmod 0777 "$T/e/good/tmp/ssl"
ln -s ../tmp/ssl "$T/e/good/etc/ssl"
start --environment "mini=$T/e/good"
is "$rc" 111 "a link in etc/ that leads to a directory everyone may write is refused"
like "$err" "$T/e/good/etc/ssl is a link that sr-jail follows.*$T/e/good/tmp/ssl is writable by others" \
	"naming the link and where it leads"
rm "$T/e/good/etc/ssl"
mkdir -p "$T/e/good/var/ssl/certs" && chmod -R go-w "$T/e/good/var/ssl" && ln -s /var/ssl "$T/e/good/etc/ssl"
start --environment "mini=$T/e/good"
is "$rc" 0 "control: one that leads to a directory nobody else can write is taken"
chmod o+w "$T/e/good/var/ssl/certs"
start --environment "mini=$T/e/good"
is "$rc" 111 "and what is in that directory is judged as the rest"
rm "$T/e/good/etc/ssl"

# --- swapped after start --------------------------------------------------------------
mini_rootfs "$T/e/other" swapped
steps --environment "mini=$T/e/good" -- 'run bash @mini cat /usr/share/which' \
	"sh mv '$T/e/good' '$T/e/was' && mv '$T/e/other' '$T/e/good'" \
	'run bash @mini cat /usr/share/which' 'run bash echo default'
mv "$T/e/good" "$T/e/other" && mv "$T/e/was" "$T/e/good"
first=$(sed -n 1p <<<"$out") second=$(sed -n 2p <<<"$out") third=$(sed -n 3p <<<"$out")
is "$first" "ok mini first" "control: before the swap the environment runs"
like "$second" "^error .*refusing to run code from $T/e/good: it is not the directory sr-mcp checked at start" \
	"a root renamed away and replaced by another after start is refused at the next run"
unlike "$second" "swapped" "and nothing ran from the one put in its place"
is "$third" "ok default" "runs in the default environment go on"

chmod 0755 "$T/e"
steps --environment "mini=$T/e/good" -- 'run bash @mini cat /usr/share/which' "sh chmod 0777 '$T/e'" \
	'run bash @mini cat /usr/share/which'
chmod 0755 "$T/e"
like "$(sed -n 2p <<<"$out")" "^error .*refusing to run code from $T/e/good: $T/e is writable by others" \
	"one that becomes world-writable after start is refused at the next run"

# --- the runners ------------------------------------------------------------------------
mkdir -m 0755 "$T/r"
cp -R "$SR_ROOT/sr-mcp/runners" "$T/r/run" && chmod -R go-w "$T/r/run"
steps --runners "$T/r/run" -- 'run bash echo mine'
is "$out" "ok mine" "control: a runners directory of one's own runs code"

chmod o+w "$T/r/run/bash"
start --runners "$T/r/run"
is "$rc" 111 "a runner others can write is refused at start"
like "$err" "^sr-mcp: fatal: refusing the runners directory $T/r/run: $T/r/run/bash is writable by others" "naming it"
chmod o-w "$T/r/run/bash"
chmod g+w "$T/r/run/python-lib/sitecustomize.py"
start --runners "$T/r/run"
is "$rc" 111 "a helper module its group can write (python-lib) is refused"
chmod g-w "$T/r/run/python-lib/sitecustomize.py"
chmod g+w "$T/r/run"
start --runners "$T/r/run"
is "$rc" 111 "a runners directory its group can write is refused"
chmod g-w "$T/r/run"
ln -s /tmp/nowhere "$T/r/run/evil"
start --runners "$T/r/run"
is "$rc" 111 "a symbolic link among the runners (it leads out of what was checked) is refused"
like "$err" "$T/r/run/evil is a symbolic link" "naming it"
rm "$T/r/run/evil"
mkdir -m 0777 "$T/r/open" && chmod 0777 "$T/r/open" && cp -R "$T/r/run" "$T/r/open/run"
start --runners "$T/r/open/run"
is "$rc" 111 "a runners directory under a directory everyone may write is refused"

cp -R "$T/r/run" "$T/r/other"
printf '#!/bin/sh\necho planted\n' >"$T/r/other/bash"
steps --runners "$T/r/run" -- 'run bash echo mine' \
	"sh mv '$T/r/run' '$T/r/was' && mv '$T/r/other' '$T/r/run'" 'run bash echo mine'
is "$(sed -n 1p <<<"$out")" "ok mine" "control: before the swap the runner runs"
like "$(sed -n 2p <<<"$out")" "^error .*refusing to run code from $T/r/run: it is not the directory sr-mcp checked" \
	"a runners directory swapped after start is refused at the next run"
unlike "$out" "planted" "and the planted runner never ran"
mv "$T/r/run" "$T/r/other" && mv "$T/r/was" "$T/r/run"

steps --runners "$T/r/run" -- 'run bash echo mine' "sh chmod o+w '$T/r/run/bash'" 'run bash echo again'
like "$(sed -n 2p <<<"$out")" "^error .*refusing to run $T/r/run/bash: $T/r/run/bash is writable by others" \
	"a runner made world-writable after start is refused at its next run"
chmod o-w "$T/r/run/bash"
done_testing
