#!/bin/bash
# Landlock: --ro, --rx, --rw restrict the filesystem to those trees (an
# attempt outside or beyond the right given fails with EACCES); by default
# signals and abstract unix sockets are scoped to the sandbox (ABI 6+);
# --landlock=off and require. Skipped where the kernel has no Landlock.
. "$(dirname "$0")/lib.sh"

cc_probe_file probe exec_probe.c
P=$T/probe
PY=/usr/bin/python3

run sr-exec -v true
abi=$(printf '%s\n' "$err" | sed -n 's/^sr-exec: note: landlock: ABI \([0-9]*\):.*/\1/p')
if [ -z "$abi" ]; then
	run sr-exec --landlock=require true
	is "$rc" 111 "--landlock=require where the kernel lacks Landlock: exit 111"
	like "$err" "unable to enforce Landlock" "--landlock=require: says why"
	skip "Landlock rules" "the kernel has no Landlock: $(printf '%s\n' "$err" | head -1)"
	done_testing
	exit
fi
diag "Landlock ABI $abi"

mkdir -p "$T/ro" "$T/rw" "$T/other"
echo ro >"$T/ro/f"
echo other >"$T/other/f"
# What a dynamically linked program needs to start: its libraries and the
# loader (which execve maps as an executable too, so --rx), the loader
# cache. The probe itself is allowed as one file.
base=(--rx /usr --ro /etc --rx "$P")
[ -L /lib64 ] || base+=(--rx /lib64)
[ -L /lib ] || base+=(--rx /lib)
# in_tree OPT PATH WANT DESC PROBE-ARGS...: the probe with the base rules and OPT PATH
in_tree() {
	local opt=$1 path=$2 want=$3 desc=$4
	shift 4
	run sr-exec "${base[@]}" "$opt" "$path" "$P" "$@"
	is "$out" "$want" "$desc"
}

in_tree --ro "$T/ro" "open_read: ok" "--ro: reading beneath the tree works" open_read "$T/ro/f"
in_tree --ro "$T/ro" "open_write: EACCES" "--ro: creating a file there: EACCES" open_write "$T/ro/new"
in_tree --ro "$T/ro" "open_write: EACCES" "--ro: writing a file there: EACCES" open_write "$T/ro/f"
in_tree --ro "$T/ro" "open_read: EACCES" "a tree not named: EACCES" open_read "$T/other/f"
in_tree --ro "$T/ro" "open_read: EACCES" "even /proc when not named" open_read /proc/self/status
in_tree --rw "$T/rw" "open_write: ok" "--rw: creating a file beneath the tree works" open_write "$T/rw/new"
in_tree --rw "$T/rw" "open_read: EACCES" "--rw of one tree: another stays closed" open_read "$T/other/f"
in_tree --ro "$T/other/f" "open_read: ok" "--ro of a single file" open_read "$T/other/f"

# Execution needs --rx: /usr read-only is not enough to exec /usr/bin/true.
run sr-exec --ro /usr --ro /etc /usr/bin/true
is "$rc" 126 "exec from a --ro tree: refused (exit 126)"
run sr-exec --rx /usr --ro /etc /usr/bin/true
is "$rc" 0 "exec from a --rx tree works"
run sr-exec --rx /usr --ro /etc --rw "$T/rw" "$PY" -c "
import os
open('$T/rw/py', 'w').write('x'); os.mkdir('$T/rw/d'); os.rename('$T/rw/py', '$T/rw/d/py')
os.unlink('$T/rw/d/py'); os.rmdir('$T/rw/d')
try:
    open('$T/other/f')
except PermissionError:
    print('refused')"
is "$out" "refused" "python3 under Landlock: works in --rw, refused elsewhere"
[ "$rc" = 0 ] || diag "$err"
run sr-exec --rx /usr --ro /etc sh -c "echo x > '$T/rw/sh'"
is "$rc" 2 "sh: redirecting into a tree not named fails"
ok "... and nothing was written" test ! -e "$T/rw/sh"

run sr-exec --landlock=require "${base[@]}" --ro "$T/ro" "$P" open_read "$T/other/f"
is "$out" "open_read: EACCES" "--landlock=require enforces"
run sr-exec --landlock=off "$P" open_read "$T/other/f"
is "$out" "open_read: ok" "--landlock=off: no filesystem rules"
run sr-exec -v "${base[@]}" --rw "$T/rw" true
like "$err" "landlock: ABI $abi: filesystem restricted \\($(( ${#base[@]} / 2 + 1 )) rules\\)" "--verbose: what Landlock enforced"
run sr-exec --ro "$T/nonexistent" true
is "$rc" 111 "--ro of a path that does not exist: exit 111"
like "$err" "unable to open $T/nonexistent for a Landlock rule" "... and says which path"

# Scoping, by default, even without paths (ABI 6).
if [ "$abi" -ge 6 ]; then
	sleep 30 &
	spid=$!
	at_exit "kill $spid 2>/dev/null"
	run sr-exec "$P" kill "$spid"
	is "$out" "kill: EPERM" "scoped: a signal to a process outside the sandbox: EPERM"
	run sr-exec --landlock=off "$P" kill "$spid"
	is "$out" "kill: ok" "--landlock=off: that signal is allowed"
	run sr-exec sh -c 'sleep 30 & kill $! && wait $!; echo $?'
	is "$out" 143 "scoped: signals inside the sandbox still work"

	name=sr-test-$$-$RANDOM
	"$PY" -c "
import socket, sys, time
s = socket.socket(socket.AF_UNIX); s.bind('\0$name'); s.listen(4)
open('$T/ready', 'w').close(); time.sleep(30)" &
	lpid=$!
	at_exit "kill $lpid 2>/dev/null"
	wait_for "the abstract socket listener" 5 test -e "$T/ready"
	run sr-exec "$P" abstract "$name"
	is "$out" "abstract: EPERM" "scoped: connecting to an abstract socket outside: EPERM"
	run sr-exec --landlock=off "$P" abstract "$name"
	is "$out" "abstract: ok" "--landlock=off: that connection is allowed"
	run sr-exec "$PY" -c "
import socket
s = socket.socket(socket.AF_UNIX); s.bind('\0$name-in'); s.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect('\0$name-in'); print('inside ok')"
	is "$out" "inside ok" "scoped: abstract sockets inside the sandbox still work"
	run sr-exec -v true
	like "$err" "scoped abstract unix sockets and signals" "--verbose: scoping reported"
else
	skip "Landlock scoping of signals and abstract sockets" "needs ABI 6, kernel has $abi"
fi

done_testing
