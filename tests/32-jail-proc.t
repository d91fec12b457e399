#!/bin/bash
# sr-jail: processes. Host processes are out of sight and reach, PID 1
# reaps and forwards signals, nothing outlives the jail, and the jail dies
# with whoever started it.
. "$(dirname "$0")/lib.sh"

need_userns

# wait_gone PATTERN: wait (up to 5 s) until no process matches.
wait_gone() { wait_for "no process matching $1" 5 ! pgrep -f -- "$1"; }
# wait_file FILE: wait (up to 5 s) until FILE is not empty.
wait_file() { wait_for "$1 to be written" 5 test -s "$1"; }

# A host process of the same user, to attack.
sleep 300 &
victim=$!
at_exit "kill $victim 2>/dev/null"
ok "control: the host process is alive" kill -0 "$victim"

run sr-jail sh -c 'ls /proc | grep -E "^[0-9]+$" | tr "\n" " "'
like "$out" "^1 [0-9 ]+$" "/proc shows PID 1 and the jail's own processes"
unlike "$out" "(^| )$victim( |$)" "the host process is not in /proc"
run sr-jail sh -c 'echo $$; cat /proc/1/comm'
is "$out" "2
sr-jail" "the program is PID 2 under the jail's init"
run sr-jail sh -c "kill -9 $victim"
ok "kill of a host process fails" test "$rc" != 0
like "$err" "No such process" "the host pid does not exist inside"
run sr-jail python3 -c "
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.ptrace(16, $victim, None, None)  # PTRACE_ATTACH
print(r, ctypes.get_errno())"
is "$out" "-1 3" "ptrace of a host process fails with ESRCH"
ok "the host process survived" kill -0 "$victim"
run sr-jail sh -c 'kill -9 1; kill -TERM 1; kill -INT 1; sleep 0.1; echo alive'
is "$out" "alive" "the program cannot kill its init, nor signal itself through it"
is "$rc" 0 "and the jail carries on"
run sr-jail python3 -c "
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print(libc.ptrace(16, 1, None, None), ctypes.get_errno())"
is "$out" "-1 1" "ptrace of PID 1 fails with EPERM"
run sr-jail sh -c 'grep -E "^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):" /proc/self/status | tr -s "\t" " "'
is "$out" "CapInh: 0000000000000000
CapPrm: 0000000000000000
CapEff: 0000000000000000
CapBnd: 0000000000000000
CapAmb: 0000000000000000
NoNewPrivs: 1" "no capability in any set, no_new_privs"
run sr-jail --uid 0 sh -c 'grep -E "^(CapEff|CapBnd):" /proc/self/status | tr -s "\t" " "'
is "$out" "CapEff: 0000000000000000
CapBnd: 0000000000000000" "none for uid 0 inside either"

# PID 1 reaps orphans.
run sr-jail sh -c '(sleep 0.2 & sleep 0.2 &) ; sleep 0.6; ps -eo stat= | grep -c Z'
is "$out" 0 "orphans are reaped, no zombies"

# Nothing outlives the jail: a double-forked daemon dies with it.
mark="sleep 313.$$"
run sr-jail sh -c "(setsid sh -c '$mark' </dev/null >/dev/null 2>&1 &); sleep 0.2; pgrep -f '^$mark' >/dev/null && echo seen; exit 0"
is "$rc:$out" "0:seen" "the jail exits with its program, the daemon running"
ok "the double-forked daemon died with the jail" wait_gone "$mark"

# When sr-jail's parent is killed with SIGKILL, the jail dies.
mark2="sleep 317.$$"
bash -c "sr-jail sh -c '$mark2; :'; :" &
parent=$!
disown "$parent" # no "Killed" notice from this shell
wait_for "the jailed $mark2" 5 pgrep -f -- "^$mark2"
ok "control: the jailed process is running" pgrep -f -- "^$mark2"
kill -9 "$parent"
ok "SIGKILL of sr-jail's parent kills the jail" wait_gone "^$mark2"
ok "and sr-jail itself" wait_gone "^sr-jail sh -c $mark2"

# The outer sr-jail forwards SIGTERM, SIGINT, SIGHUP to the program.
mkdir -p "$T/sig"
for s in TERM INT HUP; do
	rm -f "$T/sig/ready"
	# (bash starts background jobs with SIGINT ignored; undo that)
	env --default-signal=INT,QUIT sr-jail --bind "$T/sig" /sig \
		sh -c "trap 'exit 42' $s; echo up > /sig/ready; while :; do sleep 0.05; done" &
	pid=$!
	wait_file "$T/sig/ready"
	kill -"$s" "$pid"
	wait "$pid"
	is "$?" 42 "SIG$s reaches the program, which exits 42"
done
sr-jail --bind "$T/sig" /sig sh -c 'echo up > /sig/ready2; exec sleep 60' &
pid=$!
wait_file "$T/sig/ready2"
kill -TERM "$pid"
wait "$pid"
is "$?" 143 "a program killed by the forwarded SIGTERM gives 143"
done_testing
