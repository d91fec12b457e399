#!/bin/bash
# Exhausting resources through the whole chain (sr-limit sr-jail sr-exec):
# a fork bomb and a thread bomb under --pids, a CPU spinner under --cpu,
# descriptors under --nofile, an output flood under --fsize, an address
# space under --as, the jail's /tmp filled up, the wall clock. Each limit
# comes with a control run of the same probe without that limit.
. "$(dirname "$0")/../lib.sh"

need_userns

mkdir -p "$T/p"
cc_probe_file p/rp rp.c -pthread
JAIL=(sr-jail --ro-bind "$T/p" /p sr-exec)
stats() { json_get "$T/s.json" "$1"; }
# lim [sr-limit options] -- PROBE-ARGS: the probe through the whole chain.
lim() {
	local o=()
	while [ "$1" != -- ]; do o+=("$1"); shift; done
	shift
	run sr-limit "${o[@]}" --stats "$T/s.json" "${JAIL[@]}" /p/rp "$@"
}

# A fork bomb under --pids 64, its children holding on (for up to 300 s:
# it is ended once the host has shown it can start processes meanwhile).
# How fast the host does it is make bench's business, not this test's.
mark="/p/rp bomb 400 300000"
tasks0=$(user_tasks)
sr-limit --pids 64 --timeout 600s --stats "$T/bomb.json" "${JAIL[@]}" /p/rp bomb 400 300000 > "$T/bomb.out" 2>&1 &
bpid=$!
wait_for "the fork bomb to reach its limit" 60 grep -q forked "$T/bomb.out"
out=$(cat "$T/bomb.out")
like "$out" "^forked [0-9]+ EAGAIN$" "the fork bomb under --pids 64 is stopped with EAGAIN ($out)"
n=$(printf '%s' "$out" | awk '{print $2}')
start=$(date +%s%N)
ok "while the bomb holds its processes, the host still starts 16 processes" \
	sh -c 'for i in $(seq 16); do sh -c true & done; wait'
diag "(the host's 16 processes took $(( ($(date +%s%N) - start) / 1000000 )) ms)"
held=$(pgrep -c -f "^$mark")
ok "and the bomb held them all the while (${held:-0} of its $((${n:-0} + 1)) processes alive)" \
	test "${held:-0}" -gt "${n:-999}"
kill -TERM "$bpid"
wait_pid 120 "$bpid"
is "$wst" 143 "the bomb ends with the SIGTERM passed on to it"
gone=$(tasks_gone "$tasks0")
[ "$gone" = 0 ] || diag "$gone other tasks of the user ended meanwhile: the bound is 64 + $gone"
ok "it got no more than 64 processes ($n)" test "${n:-999}" -le $((64 + gone))
ok "none of its processes is left" wait_for "the bomb's processes to go" 60 ! pgrep -f "^$mark"
lim --timeout 300s -- bomb 100 200
is "$out" "forked 100 none" "control: without --pids the same probe forks all 100"

# A thread bomb: threads count as processes.
tasks0=$(user_tasks)
lim --pids 64 --timeout 300s -- threads 400
like "$out" "^threads [0-9]+ EAGAIN$" "a thread bomb under --pids 64 is stopped with EAGAIN ($out)"
n=$(printf '%s' "$out" | awk '{print $2}')
gone=$(tasks_gone "$tasks0")
[ "$gone" = 0 ] || diag "$gone other tasks of the user ended meanwhile: the bound is 64 + $gone"
ok "it got no more than 64 threads ($n)" test "${n:-999}" -le $((64 + gone))
lim --timeout 300s -- threads 100
is "$out" "threads 100 none" "control: without --pids it starts all 100"

# A CPU spinner under --cpu 1s.
# (CPU time, not the wall clock; the bound is generous all the same: the
# jail's own start is counted too, slow under a sanitizer or TCG)
lim --pids 64 --timeout 300s --cpu 1s -- spin 30000
is "$rc:$out" "152:" "a spinner under --cpu 1s dies of SIGXCPU (152) before it is done"
is "$(stats status)" 152 "the report gives status 152"
cpu=$(python3 -c "import json; s = json.load(open('$T/s.json')); print(round(s['user_ms'] + s['sys_ms']))")
ok "it used about a second of CPU, not the thirty it wanted (user+sys ${cpu} ms)" \
	test "${cpu:-0}" -ge 500 -a "${cpu:-0}" -lt 10000
lim --pids 64 --timeout 300s -- spin 1200
is "$rc:$out" "0:done" "control: without --cpu it finishes its 1.2 s of CPU"

# Descriptors under --nofile 32.
lim --pids 64 --timeout 300s --nofile 32 -- fds 1000
like "$out" "^opened [0-9]+ EMFILE$" "opening files under --nofile 32 stops with EMFILE ($out)"
n=$(printf '%s' "$out" | awk '{print $2}')
ok "fewer than 32 were opened ($n)" test "${n:-999}" -lt 32
lim --pids 64 --timeout 300s -- fds 500
is "$out" "opened 500 none" "control: without --nofile all 500 open"

# An output flood into a file under --fsize 1M.
sr-limit --pids 64 --timeout 300s --fsize 1M --stats "$T/s.json" "${JAIL[@]}" /p/rp flood 0 > "$T/flood"
rc=$?
is "$rc" 153 "an endless write to stdout (a file) under --fsize 1M dies of SIGXFSZ (153)"
is "$(stats status):$(stats limits.fsize.bytes)" "153:1048576" "the report gives status 153 and the 1M fsize limit"
is "$(wc -c < "$T/flood" | tr -d ' ')" 1048576 "the file stopped at exactly 1M"
sr-limit --pids 64 --timeout 300s "${JAIL[@]}" /p/rp flood 3145728 > "$T/flood"
is "$?:$(wc -c < "$T/flood" | tr -d ' ')" "0:3145728" "control: without --fsize the probe writes its 3M"
rm -f "$T/flood"

# Address space under --as.
if san_asan; then
	skip "allocating 512M under --as 256M: ENOMEM" "ASan's shadow memory does not fit under --as"
else
	lim --pids 64 --timeout 300s --as 256M -- alloc 512
	is "$out" "alloc ENOMEM" "allocating 512M under --as 256M: ENOMEM"
fi
lim --pids 64 --timeout 300s -- alloc 512
is "$out" "alloc ok" "control: without --as the 512M are allocated and touched"

# Filling the jail's /tmp (a 64M tmpfs).
lim --pids 64 --timeout 300s -- fill /tmp/fill 1000
like "$out" "^wrote [0-9]+ ENOSPC$" "writing 1000M into the jail's /tmp gets ENOSPC ($out)"
n=$(printf '%s' "$out" | awk '{print $2}')
ok "after no more than 64M ($n)" test "${n:-999}" -le 64
lim --pids 64 --timeout 300s -- fill /tmp/fill 8
is "$out" "wrote 8 none" "control: 8M fit in the jail's /tmp"
run sr-limit --pids 64 --timeout 300s sr-jail --tmpfs /tmp:4M --ro-bind "$T/p" /p sr-exec /p/rp fill /tmp/fill 8
like "$out" "^wrote [0-4] ENOSPC$" "with --tmpfs /tmp:4M the same 8M get ENOSPC ($out)"

# The wall clock.
lim --pids 64 --timeout 1s -- bomb 1 300000
is "$rc:$(stats reason)" "124:timeout" "a run past --timeout 1s ends with 124, reason timeout"
ok "ended by it, long before the probe's 300 s ($(stats wall_ms) ms)" python3 -c "import sys; sys.exit(not float('$(stats wall_ms)') < 60000)"
lim --pids 64 --timeout 300s -- bomb 1 100
is "$rc:$(stats reason)" "0:exit" "control: a short run under the same chain ends with 0, reason exit"

done_testing
