#!/bin/bash
# sr-queue run --via srun, and sr-mcp --via srun, on the one-node Slurm
# cluster that tests/slurm/run.sh started (SLURM_CONF): a sandboxed Python
# job with its output and sr-limit's stats; an exit code, a signal death,
# a timeout, a cancel (sr-queue cancel, and scancel of the step) each
# carried back; a node that cannot see the spool; twenty jobs at once.
. "$(dirname "$0")/../lib.sh"

[ -n "${SLURM_CONF:-}" ] || skip_all "no cluster: run make check-slurm (as root)"
need_userns
via='srun --quiet --nodes=1 --ntasks=1 --export=NONE --'
host=$(hostname -s)
sp=$T/spool
mkdir "$T/work"
cd "$T/work" || exit 1
status() { sr-queue status "$sp" "$1"; }
field() { json_get "$(sr-queue status "$sp" "$1" --json)" "$2"; }
landed_on() { json_get "$(cat "$sp/done/$1/landed" 2>/dev/null)" host; }
# slurm_steps: the steps the cluster is running now, JOBID.STEP
slurm_steps() { squeue -h -s -o %i 2>/dev/null | grep -v '\.extern$'; }

sr-queue run "$sp" -j 20 --via "$via" 2>"$T/worker.err" &
wpid=$!
at_exit "kill $wpid 2>/dev/null; wait $wpid 2>/dev/null"

# --- a sandboxed Python job -----------------------------------------------------------
printf 'import sys\nprint(sum(range(10)), file=sys.stdout)\nprint("py-err", file=sys.stderr)\nsys.exit(5)\n' > main.py
py=$(sr-queue submit "$sp" --env PATH="$PATH" --stdin main.py -- \
	sr-limit --timeout 60s sr-jail sr-exec python3 -)
run sr-queue wait "$sp" "$py" --timeout 120s
is "$rc" 5 "a sandboxed Python job through srun: its exit code"
is "$(sr-queue logs "$sp" "$py")" 45 "its stdout"
is "$(sr-queue logs "$sp" "$py" --stream stderr)" py-err "its stderr, apart"
is "$(field "$py" limit.reason)" exit "sr-limit's stats came back from the node"
is "$(field "$py" limit.exit_code)" 5 "with the job's exit code"
like "$(field "$py" limit.peak_memory_bytes)" '^[1-9][0-9]*$' "and its peak memory"
is "$(landed_on "$py")" "$host" "it ran under sr-queue land on node $host"

# --- an exit code, a signal, a timeout ------------------------------------------------
e=$(sr-queue submit "$sp" -- sh -c 'echo out; exit 7')
k=$(sr-queue submit "$sp" -- sh -c 'kill -9 $$')
t=$(sr-queue submit "$sp" --timeout 1s -- sh -c 'sleep 60')
run sr-queue wait "$sp" "$e" --timeout 60s
is "$rc" 7 "an exit code comes back"
is "$(sr-queue logs "$sp" "$e")" out "with the job's output and nothing of srun's"
is "$(sr-queue logs "$sp" "$e" --stream stderr)" "" "and no srun message on its stderr"
run sr-queue wait "$sp" "$k" --timeout 60s
is "$(status "$k")" "$k completed signal 9" "a signal death comes back as the signal"
is "$rc" 137 "wait exits 137"
run sr-queue wait "$sp" "$t" --timeout 60s
is "$(status "$t")" "$t completed timeout" "a timeout comes back"
is "$rc" 124 "wait exits 124"

# --- cancel: from sr-queue, and scancel of the step ------------------------------------------
wait_for "the cluster to have no step running" 30 test -z "$(slurm_steps)"
mkdir c
c=$(cd c && sr-queue submit "$sp" -- sh -c 'echo $$ > main.pid; echo started; sleep 300')
wait_for "the job to start on the node" 60 test -s c/main.pid
ok "the job is a step of the cluster" test -n "$(slurm_steps)"
run sr-queue cancel "$sp" "$c" --timeout 30s
is "$out" "$c cancelled" "sr-queue cancel of a job on the cluster"
# srun ends once the step is cancelled; Slurm kills the step's processes
# then (they all belong to the step): a moment, not at once.
gone() { wait_for "process $1 to die" 30 ! live_pids "$1"; }
ok "its process on the node dies" gone "$(cat c/main.pid)"
ok "and its step is gone" wait_for "the step to end" 30 test -z "$(slurm_steps)"
run sr-queue wait "$sp" "$c"
is "$rc" 98 "wait exits 98"
mkdir s
s=$(cd s && sr-queue submit "$sp" -- sh -c 'echo $$ > main.pid; sleep 300')
wait_for "the job to start on the node" 60 test -s s/main.pid
step=$(slurm_steps | head -1)
like "$step" '^[0-9]+\.[0-9]+$' "the job's step: $step"
scancel "$step"
run sr-queue wait "$sp" "$s" --timeout 60s
is "$rc" 98 "scancel of the step (SIGKILL to all of it): the job is cancelled"
ok "and its process dies" gone "$(cat s/main.pid)"
mkdir j
j=$(cd j && sr-queue submit "$sp" -- sh -c 'echo $$ > main.pid; sleep 300')
wait_for "the job to start on the node" 60 test -s j/main.pid
job=$(slurm_steps | head -1)
scancel "${job%%.*}"
run sr-queue wait "$sp" "$j" --timeout 60s
is "$rc" 98 "scancel of the Slurm job (SIGTERM first): the job is cancelled"
ok "and its process dies" gone "$(cat j/main.pid)"

# --- twenty jobs at once -------------------------------------------------------------------
ids=
for i in $(seq 20); do ids="$ids $(sr-queue submit "$sp" -- sh -c "echo job-$i")"; done
good=0 i=0
for id in $ids; do
	i=$((i + 1))
	sr-queue wait "$sp" "$id" --timeout 120s >/dev/null &&
		[ "$(sr-queue logs "$sp" "$id")" = "job-$i" ] && good=$((good + 1))
done
is "$good" 20 "twenty jobs through srun at once: all completed with their output"

kill -TERM "$wpid"
wait "$wpid"
is "$?" 0 "the worker stops cleanly"
is "$(cat "$T/worker.err")" "" "and said nothing on stderr"

# --- a node that cannot see the spool ------------------------------------------------------
# srun --chroot is root's; a mount namespace on the node is ours: land runs
# where the spool's path is an empty tmpfs.
if unshare -rm true 2>/dev/null; then
	printf '#!/bin/sh\nexec unshare -rm sh -c %s "$HIDE" "$@"\n' \
		"'mount -t tmpfs none \"\$0\" && exec \"\$@\"'" > "$T/blind"
	chmod +x "$T/blind"
	b=$(sr-queue submit "$sp" -- true)
	run env HIDE="$sp" sr-queue run "$sp" --drain --via "srun --quiet --nodes=1 --ntasks=1 -- $T/blind"
	is "$(field "$b" reason)" via "a node that cannot see the spool: the job fails, reason via"
	like "$(field "$b" error)" "node $host cannot see the job's directory" "and its error says so"
else
	skip "a node that cannot see the spool" "unshare -rm does not work here"
fi

# --- sr-mcp --via srun ----------------------------------------------------------------
allocs() { grep -c 'sched: _slurm_rpc_allocate_resources\|sched: Allocate JobId' "$SR_SLURM_LOG" 2>/dev/null; }
before=$(allocs)
call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_code","arguments":{"language":"python","code":"import os\nprint(6*7, os.getcwd())"}}}'
run mcp_call "$call" env "${mcp_san[@]+"${mcp_san[@]}"}" SR_MCP_STATE_DIR="$T/mcp" sr-mcp --via "$via" -j 4
is "$(json_get "$out" result.structuredContent.stdout)" "42 /workspace" "sr-mcp --via srun: a Python run's output"
is "$(json_get "$out" result.structuredContent.status)" succeeded "its status"
like "$(json_get "$out" result.structuredContent.peak_memory_bytes)" '^[1-9][0-9]*$' "its stats"
job=$(json_get "$out" result.structuredContent.job_id)
is "$(json_get "$(cat "$T/mcp/spool/done/$job/landed" 2>/dev/null)" host)" "$host" "it ran on node $host"
ok "through an allocation of the cluster" test "$(allocs)" -gt "$before"
for p in /proc/[0-9]*; do
	case $(tr '\0' ' ' 2>/dev/null < "$p/cmdline") in
	"sr-queue run $T/mcp/spool "*) kill "${p#/proc/}" ;;
	esac
done

done_testing
