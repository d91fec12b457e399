#!/bin/bash
# Escapes through other processes and the terminal, tried through the
# whole chain (sr-limit sr-jail sr-exec): signals, ptrace, pidfds and
# priorities aimed at a host process the test started, daemons that try
# to outlive the run, nested user namespaces, and TIOCSTI. Each refusal
# comes with a control where the layer that stops it is absent.
. "$(dirname "$0")/../lib.sh"

need_userns

mkdir -p "$T/p"
cc_probe_file p/pp pp.c
PP=$T/p/pp
LIMIT=(sr-limit --pids 64 --timeout 20s)
CHAIN=("${LIMIT[@]}" sr-jail --ro-bind "$T/p" /p sr-exec)
chain() { run "${CHAIN[@]}" /p/pp "$@"; }
bare() { run "$PP" "$@"; }
alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^State:.*[tT] (' "/proc/$1/status"; }
tracer() { awk '/^TracerPid:/ {print $2}' "/proc/$1/status"; }
nice_of() { ps -o ni= -p "$1" | tr -d ' '; }

# Host processes of the same user, to attack.
sleep 120 &
victim=$!
sleep 120 &
victim2=$!
at_exit "kill $victim $victim2 2>/dev/null"

# Signals.
bare kill "$victim" 0
is "$out" ok "control: the probe may signal the host process (signal 0)"
chain kill "$victim" 9
is "$out" ESRCH "SIGKILL to the host PID from inside: ESRCH"
chain kill -1 9
is "$out" ESRCH "kill(-1, SIGKILL) inside finds nothing it may signal: ESRCH"
sleep 0.1
ok "the host process survived both" alive "$victim"
# Signals to the jail's init: dropped by init, or refused outright where
# sr-exec scopes signals with Landlock (ABI 6 and later).
run sr-exec -v true
case $err in
*"scoped abstract unix sockets and signals"*) want=EPERM ;;
*) want=ok ;;
esac
run "${CHAIN[@]}" sh -c '/p/pp kill 1 9; /p/pp kill 1 15; echo alive'
is "$out" "$want
$want
alive" "SIGKILL and SIGTERM to the jail's init: $want, and the program carries on"

# ptrace.
bare ptrace "$victim"
if [ "$out" = ok ]; then
	ok "control: the probe can PTRACE_SEIZE the host process on the host" true
else
	skip "control: PTRACE_SEIZE of the host process" "ptrace of a sibling is refused here: $out"
fi
chain ptrace "$victim"
is "$out" EPERM "PTRACE_SEIZE of the host PID from inside: EPERM (filter)"
run "${LIMIT[@]}" sr-jail "$PP" ptrace "$victim"
is "$out" ESRCH "and with the jail alone, ESRCH: the PID is not there"
chain ptrace 1
is "$out" EPERM "PTRACE_SEIZE of the jail's init: EPERM"
is "$(tracer "$victim")" 0 "the host process has no tracer"
ok "and is alive and not stopped" alive "$victim"

# pidfds.
bare pidfd "$victim" 0
is "$out" ok "control: pidfd_open and pidfd_send_signal(0) on the host process work on the host"
chain pidfd "$victim" 9
is "$out" ESRCH "pidfd_open of the host PID from inside: ESRCH"
ok "the host process survived" alive "$victim"

# Reaching the process through /proc, its limits, its priority.
run sh -c 'tr "\0" " " < "$1"' sh "/proc/$victim/cmdline"
is "$out" "sleep 120 " "control: the host process's cmdline is readable on the host"
run "${CHAIN[@]}" cat "/proc/$victim/cmdline"
like "$err" "No such file" "inside, /proc/$victim does not exist"
bare prlimit "$victim"
is "$out" ok "control: prlimit of the host process works on the host"
chain prlimit "$victim"
is "$out" EPERM "prlimit of the host PID from inside: EPERM"
before=$(nice_of "$victim")
bare prio "$victim2" 7
is "$out:$(nice_of "$victim2")" "ok:7" "control: the probe renices a host process of the user on the host"
chain prio_user 19
is "$out" ok "setpriority(PRIO_USER) inside succeeds..."
is "$(nice_of "$victim")" "$before" "...but reaches no host process of the user (nice still $before)"
chain prio "$victim" 19
is "$out" ESRCH "setpriority of the host PID from inside: ESRCH"

# Nothing outlives the run: a double-forked, setsid daemon.
mark="sr-esc-daemon-$$-$RANDOM"
bare daemon "$mark-host"
if wait_for "the probe's daemon on the host" 5 pgrep -f "^$mark-host 60\$"; then
	ok "control: on the host the probe's daemon outlives it" true
	pkill -f "^$mark-host 60\$"
else
	ok "control: on the host the probe's daemon outlives it" false
fi
run "${CHAIN[@]}" sh -c '/p/pp daemon "$1" && pgrep -f "^$1 60\$" >/dev/null && echo running' sh "$mark-jail"
is "$out" "started
running" "inside, the daemon was started and running"
gone=no
wait_for "the jail's daemon to go" 5 ! pgrep -f "^$mark-jail 60\$" && gone=yes
is "$gone" yes "the daemon is gone once the chain has returned"

# Nested user namespaces.
bare unshare 0x10000000
is "$out" ok "control: unshare(CLONE_NEWUSER) works on the host"
run "${LIMIT[@]}" sr-jail --allow-userns "$PP" unshare 0x10000000
is "$out" ok "control: in sr-jail --allow-userns without the filter it works too"
run "${LIMIT[@]}" sr-jail "$PP" unshare 0x10000000
is "$out" ENOSPC "sr-jail alone refuses it (max_user_namespaces 0): ENOSPC"
chain unshare 0x10000000
is "$out" EPERM "through the chain: EPERM"
chain clone 0x10000000
is "$out" EPERM "clone(CLONE_NEWUSER) through the chain: EPERM"
run "${LIMIT[@]}" sr-jail --allow-userns --ro-bind "$T/p" /p sr-exec /p/pp unshare 0x10000000
is "$out" EPERM "even with --allow-userns, sr-exec's filter still refuses it"
run "${CHAIN[@]}" cat /proc/sys/user/max_user_namespaces
is "$out" 0 "the jail's user.max_user_namespaces is 0"

# The terminal: TIOCSTI into the pty the chain was started on.
onpty="$SR_ROOT/tests/probes/onpty.py"   # runs its arguments on a new pty
if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null)" = 0 ]; then
	skip "control: TIOCSTI on the controlling terminal" "dev.tty.legacy_tiocsti=0 forbids it everywhere"
else
	run python3 "$onpty" "$PP" tiocsti
	is "$out" "#ok" "control: on its controlling pty the probe pushes input with TIOCSTI (the '#' echoes back)"
fi
run python3 "$onpty" "${CHAIN[@]}" /p/pp tiocsti
is "$out" EPERM "through the chain on the same pty: EPERM, and nothing echoes back"
run python3 "$onpty" "${CHAIN[@]}" sh -c '(exec 3</dev/tty) 2>/dev/null && echo opened || echo none'
is "$out" none "there is no /dev/tty to reopen inside"

done_testing
