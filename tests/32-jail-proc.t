#!/bin/bash
# sr-jail: processes. Host processes are out of sight and reach, PID 1
# reaps and forwards signals, nothing outlives the jail, and the jail dies
# with whoever started it.
. "$(dirname "$0")/lib.sh"

need_userns

# Waits are bounded generously (a loaded machine, a VM under TCG): what
# they check is that something happens, not how fast.
# wait_gone PATTERN: wait (up to 60 s) until no process matches.
wait_gone() { wait_for "no process matching $1" 60 ! pgrep -f -- "$1"; }
# wait_file FILE: wait (up to 60 s) until FILE is not empty.
wait_file() { wait_for "$1 to be written" 60 test -s "$1"; }
# In the jail: poll (up to 60 s) until the command succeeds.
poll='p() { i=0; until "$@" >/dev/null 2>&1 || [ $i -ge 1200 ]; do sleep 0.05; i=$((i+1)); done; }'

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
run sr-jail sh -c "$poll"'; (sleep 0.2 & sleep 0.2 &); p sh -c "! pgrep -x sleep"; p sh -c "! ps -eo stat= | grep -q Z"; ps -eo stat= | grep -c Z'
is "$out" 0 "orphans are reaped, no zombies"

# Nothing outlives the jail: a double-forked daemon dies with it.
mark="sleep 313.$$"
run sr-jail sh -c "$poll; (setsid sh -c '$mark' </dev/null >/dev/null 2>&1 &); p pgrep -f '^$mark'; pgrep -f '^$mark' >/dev/null && echo seen; exit 0"
is "$rc:$out" "0:seen" "the jail exits with its program, the daemon running"
ok "the double-forked daemon died with the jail" wait_gone "$mark"

# When sr-jail's parent is killed with SIGKILL, the jail dies.
mark2="sleep 317.$$"
bash -c "sr-jail sh -c '$mark2; :'; :" &
parent=$!
disown "$parent" # no "Killed" notice from this shell
wait_for "the jailed $mark2" 60 pgrep -f -- "^$mark2"
ok "control: the jailed process is running" pgrep -f -- "^$mark2"
kill -9 "$parent"
ok "SIGKILL of sr-jail's parent kills the jail" wait_gone "^$mark2"
ok "and sr-jail itself" wait_gone "^sr-jail sh -c $mark2"

# The outer sr-jail forwards SIGTERM, SIGINT, SIGHUP to the program. (bash
# starts background jobs with SIGINT ignored, and a caller's nohup leaves
# SIGHUP ignored: a signal the caller ignored is not passed on, so this
# caller undoes both.) Every wait for the jail is bounded: a signal that
# does not arrive fails the test instead of hanging it.
mkdir -p "$T/sig"
dflt=(env --default-signal=HUP,INT,QUIT,TERM)
for s in TERM INT HUP; do
	rm -f "$T/sig/ready"
	"${dflt[@]}" sr-jail --bind "$T/sig" /sig \
		sh -c "trap 'exit 42' $s; echo up > /sig/ready; while :; do sleep 0.05; done" &
	pid=$!
	wait_file "$T/sig/ready"
	kill -"$s" "$pid"
	wait_pid 120 "$pid"
	is "$wst" 42 "SIG$s reaches the program, which exits 42"
done
"${dflt[@]}" sr-jail --bind "$T/sig" /sig sh -c 'echo up > /sig/ready2; exec sleep 60' &
pid=$!
wait_file "$T/sig/ready2"
kill -TERM "$pid"
wait_pid 120 "$pid"
is "$wst" 143 "a program killed by the forwarded SIGTERM gives 143"

# Signals the caller ignored (nohup, trap '' SIG) are at their default
# action in the program: its trap fires, or the default action ends it.
# ign SIGS CMD...: run CMD with SIGS ignored (set on entry, as nohup does).
# (bash's own notice of a command killed by a signal is not wanted: 2>/dev/null)
ign() { local s=$1; shift; { run timeout -s KILL 120 bash -c "trap '' $s; exec \"\$@\"" _ "$@"; } 2>/dev/null; }
for s in HUP INT TERM QUIT; do
	ign "HUP INT TERM QUIT" sh -c "trap 'exit 42' $s; kill -$s \$\$; exit 0"
	is "$rc" 0 "control: with SIG$s ignored on entry, sh cannot trap it (the kill is lost)"
	ign "HUP INT TERM QUIT" sr-jail sh -c "trap 'exit 42' $s; kill -$s \$\$; exit 0"
	is "$rc" 42 "with SIG$s ignored by sr-jail's caller, the program's trap on it fires"
done
ign "HUP INT TERM QUIT PIPE XCPU XFSZ" sh -c 'kill -TERM $$; kill -HUP $$; exit 0'
is "$rc" 0 "control: with SIGTERM and SIGHUP ignored on entry, they do not end sh"
for s in HUP INT TERM PIPE XCPU XFSZ; do
	ign "HUP INT TERM QUIT PIPE XCPU XFSZ" sr-jail sh -c "kill -$s \$\$; exit 0"
	is "$rc" $((128 + $(kill -l "$s"))) "with SIG$s ignored by sr-jail's caller, its default action ends the program"
done
ign HUP sr-jail sh -c 'trap "exit 42" HUP; kill -HUP $$; exit 0'
is "$rc" 42 "nohup'ed sr-jail: the program's own kill -HUP \$\$ fires its trap"
ign "HUP INT TERM" sr-limit --timeout 60s sr-jail sr-exec sh -c 'trap "exit 42" HUP; kill -HUP $$; exit 0'
is "$rc" 42 "through the chain sr-limit sr-jail sr-exec too"
# A caller's blocked signal: the program starts with it unblocked.
cc_probe blk '#include <signal.h>
#include <unistd.h>
int main(int c, char **v) { sigset_t s; sigemptyset(&s); sigaddset(&s, SIGHUP); sigaddset(&s, SIGUSR1);
	sigprocmask(SIG_BLOCK, &s, 0); execvp(v[1], v + 1); return 127; }'
# (python3, not sh: dash clears its signal mask when it starts)
hup='import os, signal; os.kill(os.getpid(), signal.SIGHUP)'
run timeout -s KILL 120 "$T/blk" python3 -c "$hup"
is "$rc" 0 "control: with SIGHUP blocked on entry, python3 does not die of it"
{ run timeout -s KILL 120 "$T/blk" sr-jail python3 -c "$hup"; } 2>/dev/null
is "$rc" 129 "with SIGHUP blocked by sr-jail's caller, the program dies of it"
run timeout -s KILL 120 "$T/blk" sr-jail grep "^SigBlk:" /proc/self/status
like "$out" "SigBlk:[[:space:]]+0+200$" "the caller's other blocked signals stay blocked (SIGUSR1)"

# But a signal the caller ignored is not passed on from outside: nohup
# still keeps a hangup from the program.
rm -f "$T/sig/ready3" "$T/sig/hup"
bash -c "trap '' HUP; exec \"\$@\"" _ env --default-signal=INT,QUIT,TERM sr-jail --bind "$T/sig" /sig \
	sh -c "trap 'echo > /sig/hup' HUP; trap 'exit 43' TERM; echo up > /sig/ready3; while :; do sleep 0.05; done" &
pid=$!
wait_file "$T/sig/ready3"
kill -HUP "$pid"
kill -TERM "$pid"
wait_pid 120 "$pid"
is "$wst" 43 "nohup'ed sr-jail: SIGTERM is passed on"
nok "and the SIGHUP sent before it was not" test -e "$T/sig/hup"
done_testing
