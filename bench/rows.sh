# bench/rows.sh - what `make bench` measures. Each group is one hyperfine
# run, so its rows are measured side by side; add a program's rows here.

# bwrap with isolation equivalent to sr's defaults: every namespace, a new
# session, die-with-parent, read-only /usr and the merged-/usr links, the
# loader cache, a fresh /proc, a minimal /dev, a tmpfs /tmp, a clean env.
BWRAP=(bwrap --unshare-all --die-with-parent --new-session --clearenv
	--setenv PATH /usr/local/bin:/usr/bin:/bin
	--ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64
	--symlink usr/bin /bin --symlink usr/sbin /sbin
	--ro-bind /etc/ld.so.cache /etc/ld.so.cache --ro-bind-try /etc/alternatives /etc/alternatives
	--proc /proc --dev /dev --tmpfs /tmp --chdir /tmp)
# The chain with the defaults a user gets, plus the limits people set.
CHAIN=(sr-limit --data 256M --timeout 30s)
have sr-jail && CHAIN+=(sr-jail)
have sr-exec && CHAIN+=(sr-exec)
chain_label="chain: ${CHAIN[*]}"

group "Start-up: /bin/true"
ratio_to bare bwrap
row bare /bin/true
# Any program that execs another costs one more exec: env is the baseline
# for what sr-limit and sr-exec add beyond their own start.
row "env (one extra exec)" env /bin/true
row bwrap "${BWRAP[@]}" /bin/true
row "unshare -Urnpm --fork" unshare -Urnpm --fork /bin/true
row "sr-limit" sr-limit /bin/true
have sr-exec && row "sr-exec (filter load)" sr-exec /bin/true
have sr-jail && row "sr-jail" sr-jail /bin/true
row "$chain_label" "${CHAIN[@]}" /bin/true

group "Start-up: python3 -c 'print(1)'"
ratio_to bare bwrap
row bare /usr/bin/python3 -c 'print(1)'
row bwrap "${BWRAP[@]}" /usr/bin/python3 -c 'print(1)'
row "$chain_label" "${CHAIN[@]}" /usr/bin/python3 -c 'print(1)'

group "Start-up: node -e 0"
ratio_to bare bwrap
row bare /usr/bin/node -e 0
row bwrap "${BWRAP[@]}" /usr/bin/node -e 0
row "$chain_label" "${CHAIN[@]}" /usr/bin/node -e 0

group "Concurrency: N chains of /bin/true at once on $(nproc) CPUs"
ratio_to "chain x1"
for n in 1 2 4 8; do
	row "chain x$n" "$SR_ROOT/bench/par.sh" "$n" "${CHAIN[@]}" /bin/true
done
row "bwrap x8" "$SR_ROOT/bench/par.sh" 8 "${BWRAP[@]}" /bin/true
row "bare x8" "$SR_ROOT/bench/par.sh" 8 /bin/true

section "Resident memory of the supervisors (one run of the chain, sleeping)" rss_section

rss_section() {
	"${CHAIN[@]}" /bin/sleep 2 &
	local top=$! pid
	sleep 0.7
	echo "| process | role | VmRSS |"
	echo "| --- | --- | --- |"
	# Walk the tree under the chain's first process.
	local tree=("$top") i=0
	while [ $i -lt ${#tree[@]} ]; do
		for pid in $(ps -o pid= --ppid "${tree[i]}" 2>/dev/null); do tree+=("$pid"); done
		i=$((i + 1))
	done
	for pid in "${tree[@]}"; do
		local comm rss role
		comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
		rss=$(awk '/^VmRSS/ {print $2 " kB"}' "/proc/$pid/status" 2>/dev/null)
		case $comm in
		sr-limit) role="sr-limit, waiting for its child" ;;
		sr-jail) role="sr-jail (outer, or the init inside)" ;;
		sleep) role="the payload" ;;
		*) role="" ;;
		esac
		echo "| $comm ($pid) | $role | $rss |"
	done
	wait "$top"
}

# sr-mcp-http against stdio, then make check's load test at full length
# (20 sessions calling run_code for 60 s; 10 s when quick), then a tenant's
# latency with a noisy neighbour (tests/mcp/http-noisy.mjs, 30 s a side).
http_section() {
	have sr-mcp || { echo "(sr-mcp not built)"; return; }
	command -v node >/dev/null || { echo "(node is not installed)"; return; }
	python3 "$SR_ROOT/bench/mcp_http.py" "$work" "$(quick 30 200)"
	[ -d "$SR_ROOT/tests/mcp/node_modules/@modelcontextprotocol/sdk" ] ||
		{ echo; echo "(load test skipped: the MCP clients are not installed: cd tests/mcp && npm ci)"; return; }
	echo
	echo "Load: 20 sessions (two tenants) calling run_code for $(quick 10 60) s:"
	echo
	SR_HTTP_LOAD_SESSIONS=20 SR_HTTP_LOAD_SECONDS=$(quick 10 60) \
		node "$SR_ROOT/tests/mcp/http-load.mjs" | sed -n 's/^# //p; /^not ok/p'
	echo
	echo "A noisy tenant: bob's calls alone, then while alice posts batches of 64 from four sessions and keeps"
	echo "hundreds of idle connections open ($(quick 8 30) s each; medians, and their ratio):"
	echo
	SR_HTTP_NOISY_SECONDS=$(quick 8 30) \
		node "$SR_ROOT/tests/mcp/http-noisy.mjs" | sed -n 's/^# //p; /^not ok/p'
}

targets_section() {
	python3 "$SR_ROOT/bench/targets.py" "$work" "$chain_label"
}

section "sr-queue: /bin/true jobs end to end (submit -> completed), fsync included" queue_section
section "sr-queue: with 10,000 jobs queued" queue_scale_section
section "sr-mcp: run_code over stdio, end to end" mcp_section
section "sr-mcp-http: run_code over Streamable HTTP against stdio" http_section
section "sr-mcp: sessions (run_code session: true) against stateless runs" session_section
section "sr-mcp: TypeScript against JavaScript, hello world end to end" typescript_section
section "sr-net: an HTTPS GET through the proxy against a direct one; the chain's start with it" net_section
section "The host beside a fork bomb held at --pids 64 by the chain" bomb_section
section "Targets" targets_section

# N jobs submitted by two concurrent submitters while W workers run;
# prints jobs/s from the first submit to the last completion.
queue_rate() { # WORKERS N
	local w=$1 n=$2 spool="$work/q$1" pids=() subs=() i t0 t1
	sr-queue submit "$spool" -- /bin/true >/dev/null    # creates the spool
	sr-queue run "$spool" --once >/dev/null 2>&1
	for ((i = 0; i < w; i++)); do sr-queue run "$spool" -j 1 2>/dev/null & pids+=($!); done
	t0=$(date +%s.%N)
	for s in 1 2; do
		( for ((i = 0; i < n / 2; i++)); do sr-queue submit "$spool" -- /bin/true >/dev/null; done ) &
		subs+=($!)
	done
	while [ "$(ls "$spool/done" | wc -l)" -lt $((n + 1)) ]; do sleep 0.01; done
	t1=$(date +%s.%N)
	wait "${subs[@]}"
	kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null
	python3 -c "print(f'{$n / ($t1 - $t0):.0f}')"
}

queue_section() {
	have sr-queue || { echo "(sr-queue not built)"; return; }
	local n=${SR_BENCH_QUICK:+200}
	n=${n:-1000}
	echo "| workers | jobs | jobs/s |"
	echo "| --- | --- | --- |"
	local r1 r2
	r1=$(queue_rate 1 "$n"); echo "| 1 | $n | $r1 |"
	r2=$(queue_rate 2 "$n"); echo "| 2 | $n | $r2 |"
	echo "$r2" > "$work/queue-throughput"
}

queue_scale_section() {
	have sr-queue || { echo "(sr-queue not built)"; return; }
	local spool="$work/big" n=10000 i mid
	[ -n "${SR_BENCH_QUICK:-}" ] && n=2000
	for s in 1 2 3 4; do
		( for ((i = 0; i < n / 4; i++)); do sr-queue submit "$spool" -- /bin/true >/dev/null; done ) &
	done
	wait
	mid=$(ls "$spool/queue" | sort | sed -n "$((n / 2))p")
	hyperfine -N -w 3 --runs 30 --style none --export-json "$work/qs.json" \
		-n "status ID ($n queued)" "sr-queue status $spool $mid" \
		-n "run --once: worker start (one scan of the queue), claim, run, finish ($n queued)" "sr-queue run $spool --once" \
		-n "list ($n jobs)" "sr-queue list $spool" >/dev/null 2>&1 &&
		python3 "$SR_ROOT/bench/table.py" "$work/qs.json"
	# Claims stay O(1): draining the big queue runs at the small queue's rate.
	local left t0 t1
	left=$(ls "$spool/queue" | wc -l)
	t0=$(date +%s.%N)
	sr-queue run "$spool" -j 2 --drain >/dev/null 2>&1
	t1=$(date +%s.%N)
	echo
	python3 -c "print(f'Draining those {$left} jobs with one worker, -j 2: {$left / ($t1 - $t0):.0f} jobs/s')"
}

session_section() {
	have sr-mcp || { echo "(sr-mcp not built)"; return; }
	python3 "$SR_ROOT/bench/session.py" "$work" "$(quick 20 100)"
}

# The typescript runner's check (bench/typescript.py): a hello world's
# median per call, the target under 0.5 s, against plain JavaScript.
typescript_section() {
	have sr-mcp || { echo "(sr-mcp not built)"; return; }
	[ -f /usr/share/nodejs/typescript/lib/typescript.js ] || { echo "(no TypeScript compiler: make install-env)"; return; }
	python3 "$SR_ROOT/bench/typescript.py" "$work" "$(quick 10 40)"
}

mcp_section() {
	have sr-mcp || { echo "(sr-mcp not built)"; return; }
	# The 10,000 jobs of the section before leave the disk writing back for
	# a while; settle it first, so that the fsyncs of these runs (a run is
	# a durable job) wait for their own writes only.
	rm -rf "$work/big"
	sync
	sleep 1
	python3 "$SR_ROOT/bench/mcp.py" "$work" "$(quick 30 200)"
}

# sr-net (bench/net.py): GETs to a TLS server of the bench's own on
# 127.0.0.1, direct and through the proxy's socket; then the chain's start
# with sr-net and sr-jail --net-proxy (the proxy forked, the forwarder in
# the jail) against the chain alone, a run of each in turn (net.py start).
net_section() {
	have sr-net || { echo "(sr-net not built)"; return; }
	command -v openssl >/dev/null || { echo "(no openssl to make the test CA)"; return; }
	python3 "$SR_ROOT/bench/net.py" "$work" "$(quick 50 500)" || return
	have sr-jail || return
	local sock="$work/start.sock" with=(sr-limit --data 256M --timeout 30s)
	with+=(sr-net -s "$sock" -a bench.test sr-jail --net-proxy "$sock")
	have sr-exec && with+=(sr-exec --net)
	echo
	local a b
	printf -v a '%q ' "${CHAIN[@]}" /bin/true
	printf -v b '%q ' "${with[@]}" /bin/true
	# the two in turn, a run of each a round (not hyperfine's all of one,
	# then all of the other: the load moves in between)
	python3 "$SR_ROOT/bench/net.py" start "$work/net-start.json" "$(quick 30 200)" \
		"$chain_label" "$a" "with sr-net: ${with[*]//$work/WORK}" "$b" >"$work/net-start.log" 2>&1 ||
		{ echo "(failed: $(tail -3 "$work/net-start.log" | tr '\n' ' '))"; return; }
	python3 "$SR_ROOT/bench/table.py" "$work/net-start.json" "$chain_label"
}

# What tests/escape/50-resources.t checks is that the host starts processes
# while a bomb in the chain holds its 64; how fast is measured here: 16
# host processes (sh -c true, at once), median of 9, alone and beside it.
host16_ms() {
	python3 -c '
import statistics, subprocess, time
def once():
    t = time.monotonic()
    ps = [subprocess.Popen(["sh", "-c", "true"]) for _ in range(16)]
    for p in ps: p.wait()
    return (time.monotonic() - t) * 1000
print(f"{statistics.median(once() for _ in range(9)):.1f}")'
}
bomb_section() {
	local alone beside pid jail=()
	have sr-jail && jail+=(sr-jail)
	have sr-exec && jail+=(sr-exec)
	alone=$(host16_ms)
	sr-limit --pids 64 --timeout 120s "${jail[@]}" python3 -c '
import os, sys, time
try:
    while True:
        if os.fork() == 0: time.sleep(100); os._exit(0)
except OSError: print("held", flush=True)
time.sleep(100)' >"$work/bomb.out" 2>&1 &
	pid=$!
	for _ in $(seq 600); do grep -q held "$work/bomb.out" && break; sleep 0.1; done
	beside=$(host16_ms)
	kill -TERM "$pid"; wait "$pid" 2>/dev/null
	echo "| 16 host processes | alone | beside the bomb |"
	echo "| --- | --- | --- |"
	echo "| median of 9 | $alone ms | $beside ms |"
}

# sr-net --secret against a tunnel (bench/secrets.sh)
. "$SR_ROOT/bench/secrets.sh"
section "sr-net --secret: one HTTPS call, the value swapped in, against a tunnel" secrets_section
