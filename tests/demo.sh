#!/bin/sh
# The project's main job, for real: untrusted code through the chain that
# exists in this build, with the report of how it ended.
set -eu
cd "$(dirname "$0")/.."
PATH="$PWD/sr-limit:$PWD/sr-jail:$PWD/sr-exec:$PWD/sr-queue:$PATH"
mem=${SR_DEMO_MEM-256M}   # SR_DEMO_MEM= (empty): no memory limit
chain="sr-limit${mem:+ --data $mem} --pids 64 --timeout 10s --stats-fd 3"
# Started by root with no delegated cgroup, --pids cannot hold (RLIMIT_NPROC
# does not bind root): the demo runs all the same, and its report says so.
if [ "$(id -u)" = 0 ]; then chain="$chain --best-effort"; fi
[ -x sr-jail/sr-jail ] && chain="$chain sr-jail"
[ -x sr-exec/sr-exec ] && chain="$chain sr-exec"
code='import os, socket, sys
print("hello from", sys.version.split()[0], "as uid", os.getuid(), "pid", os.getpid())
try:
    socket.create_connection(("1.1.1.1", 53), timeout=1); print("network: reachable")
except OSError as e:
    print("network:", e.strerror or e)
try:
    open("/etc/shadow").read(); print("/etc/shadow: readable")
except OSError as e:
    print("/etc/shadow:", e.strerror)'
echo "\$ $chain python3 -c '...'"
# The report goes to fd 3, here the terminal's stderr.
$chain python3 -c "$code" 3>&2
