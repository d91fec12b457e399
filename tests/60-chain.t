#!/bin/bash
# The whole sandbox, the way it is used: sr-limit sr-jail sr-exec prog,
# with the real interpreters, and through sr-queue.
. "$(dirname "$0")/lib.sh"

need_userns
# Under SAN=address the tools themselves carry ASan, whose shadow memory
# cannot be mapped under a memory rlimit: the chain runs without --data.
MEM=(--data 256M)
san_asan && MEM=()
CHAIN=(sr-limit "${MEM[@]}" --pids 64 --timeout 20s --stats "$T/s.json" sr-jail sr-exec)
stats() { json_get "$T/s.json" "$1"; }

# Interpreters do their ordinary work.
run "${CHAIN[@]}" python3 -c '
import json, os, subprocess, threading
t = threading.Thread(target=lambda: None); t.start(); t.join()
os.mkdir("/tmp/d"); os.rmdir("/tmp/d")
out = subprocess.run(["sh", "-c", "echo sub"], capture_output=True, text=True).stdout.strip()
print(json.dumps({"uid": os.getuid(), "sub": out, "pid": os.getpid()}))'
is "$rc" 0 "python3 runs through the chain"
like "$out" '"sub": "sub"' "threads, mkdir and subprocess work"
unlike "$out" '"uid": 0,' "not root inside"
is "$(stats reason)" exit "stats: reason exit"
run "${CHAIN[@]}" node -e '
const { Worker } = require("worker_threads");
const w = new Worker("require(\"worker_threads\").parentPort.postMessage(6 * 7)", { eval: true });
w.on("message", (m) => { console.log("worker says", m); process.exit(0); });'
is "$out" "worker says 42" "node with a worker thread runs through the chain"
run "${CHAIN[@]}" bash -c 'seq 1 1000 | awk "{s += \$1} END {print s}" | tr -d "\n"; echo " $BASH_VERSION" | cut -c1-3'
like "$out" "^500500 " "a bash pipeline runs through the chain"

# Limits hold inside the jail.
if san_asan; then
	skip "1G allocation under --data 256M fails inside the chain" "ASan's shadow memory does not fit under --data"
else
	run "${CHAIN[@]}" python3 -c '
try:
    b = bytearray(1 << 30); print("allocated")
except MemoryError:
    print("MemoryError")'
	is "$out" MemoryError "1G allocation under --data 256M fails inside the chain"
fi
run "${CHAIN[@]}" python3 -c '
import os
n = 0
try:
    while True:
        if os.fork() == 0:
            import time; time.sleep(3); os._exit(0)
        n += 1
except OSError as e:
    print("stopped", e.errno)'
is "$out" "stopped 11" "a fork bomb in the jail stops at --pids (EAGAIN)"

# The wall clock takes the whole jail with it, setsid or not.
marker="sr-chain-$$-$RANDOM"
# (the program waits with lib.sh's wait_for, given its source)
# (--timeout 10s: the chain and both sleepers must be up before it, on a
# loaded machine too)
run sr-limit --timeout 10s --stats "$T/s.json" sr-jail sr-exec bash -c "$(declare -f wait_for)
	setsid bash -c 'exec -a $marker sleep 600' & (exec -a $marker sleep 600) &
	two() { [ \$(pgrep -c -f '^$marker 600\$') = 2 ]; }
	wait_for 'two sleepers' 9 two && echo seen; sleep 60"
is "$rc:$out" "124:seen" "timeout through the chain exits 124, with two sleepers running"
is "$(stats reason)" timeout "stats: reason timeout"
ok "nothing started in the jail survives the timeout" wait_for "the sleepers to go" 60 ! pgrep -f "^$marker 600\$"

# Signals reach the program inside.
sr-limit sr-jail sr-exec python3 -c '
import signal, sys, time
signal.signal(signal.SIGTERM, lambda *a: sys.exit(42))
print("ready", flush=True); time.sleep(30)' > "$T/sig.out" &
lp=$!
wait_for "the program's SIGTERM handler" 10 grep -q ready "$T/sig.out"
kill -TERM "$lp"
wait "$lp"; is "$?" 42 "SIGTERM to sr-limit reaches the program in the jail"

# Isolation seen from inside: no network, no host secrets, no privileges.
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
s.settimeout(20)
try:
    while True: s.accept()[0].close()
except Exception: pass' "$T/port" &
lpid=$!
at_exit "kill $lpid 2>/dev/null"
wait_for "the host listener" 5 test -s "$T/port"
port=$(cat "$T/port")
ok "control: the host listener answers outside the sandbox" python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 2)"
run "${CHAIN[@]}" python3 -c "
import socket
try:
    socket.create_connection(('127.0.0.1', $port), 2); print('connected')
except OSError as e:
    print('refused', e.errno)"
is "$out" "refused 1" "the host's loopback is out of reach (socket(AF_INET) is EPERM)"
run sr-limit --timeout 20s sr-jail sr-exec --net python3 -c "
import socket
try:
    socket.create_connection(('127.0.0.1', $port), 2); print('connected')
except OSError as e:
    print('refused', e.errno)"
is "$out" "refused 111" "with --net the socket opens but the jail has no route to the host"
run "${CHAIN[@]}" sh -c 'cat /etc/shadow; cat /proc/1/environ | tr "\0" "\n" | grep -c SECRET; grep CapEff /proc/self/status'
unlike "$out" "root:" "/etc/shadow is not readable"
like "$out" "CapEff:[[:space:]]+0000000000000000" "no capabilities"

# Through sr-queue: the chain's stats end up in the job's result.
spool=$T/spool
id=$(sr-queue submit "$spool" --env "PATH=$PATH" -- sr-limit "${MEM[@]}" --timeout 10s sr-jail sr-exec python3 -c 'print("queued hello")')
is "$?" 0 "a chain job is submitted"
run sr-queue run "$spool" --drain
is "$rc" 0 "the worker drains the queue"
run sr-queue wait "$spool" "$id"
is "$rc" 0 "the job completed"
run sr-queue logs "$spool" "$id"
is "$out" "queued hello" "its output is stored"
run sr-queue status "$spool" "$id" --json
like "$out" '"reason":[ ]*"exit"' "the result has a reason"
like "$out" '"limits":' "sr-limit's stats are in the result"

# The README's first command, for real.
SR_DEMO_MEM=${MEM[1]:-} run sh "$SR_ROOT/tests/demo.sh"
is "$rc" 0 "the demo runs"
like "$out" "hello from 3" "the demo's python ran"
like "$out" "network: .*(not permitted|unreachable)" "the demo shows the network is out of reach"
like "$out" "/etc/shadow: No such file" "the demo shows /etc/shadow is out of reach"
like "$err" '"reason":"exit"' "the demo prints sr-limit's report"
done_testing
