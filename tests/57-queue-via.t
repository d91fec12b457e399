#!/bin/bash
# sr-queue run --via: each job goes through a launcher prefix (as srun is
# on a cluster) and comes back as if it had run here: output, stdin, the
# job's own environment and directory, exit code, signal, timeout, sr-limit's
# stats (a file in the job's directory, not an fd), cancellation from here
# and from the "node", a node that dies (lost, or requeued under --retry),
# a launcher that fails, and a node that cannot see the spool. The
# launchers are fakes: `env` (runs its arguments) and a few scripts.
# tests/slurm/ does the same through a real Slurm.
. "$(dirname "$0")/lib.sh"

sp=$T/spool
mkdir "$T/work"
cd "$T/work" || exit 1
lim=$(command -v sr-limit)
status() { sr-queue status "$sp" "$1"; }
field() { json_get "$(sr-queue status "$sp" "$1" --json)" "$2"; }

# --- what a job gets, and gives back -------------------------------------------------
printf 'from stdin\n' > in.txt
a=$(sr-queue submit "$sp" --stdin in.txt --env ONLY=job -- \
	sh -c 'cat; echo to-stderr >&2; pwd; env | sort; exit 3')
s=$(sr-queue submit "$sp" -- "$lim" sh -c 'echo limited')
k=$(sr-queue submit "$sp" -- sh -c 'kill -9 $$')
t=$(sr-queue submit "$sp" --timeout 300ms -- sh -c 'sleep 30')
x=$(sr-queue submit "$sp" -- /nonexistent/prog)
run env LEAK=launcher sr-queue run "$sp" --drain --via 'env LEAK=launcher-arg'
is "$rc" 0 "a worker --via 'env ...' serves the spool and exits 0"
is "$err" "" "and says nothing on stderr"
is "$(status "$a")" "$a completed exit 3" "the job's exit code comes back"
run sr-queue wait "$sp" "$a"
is "$rc" 3 "wait exits with it"
is "$(sr-queue logs "$sp" "$a" | head -2)" "from stdin
$T/work" "the job read its stdin file and ran in its directory"
envs=$(sr-queue logs "$sp" "$a" | tail -n +3 | grep -v '^PWD=')
is "$envs" "ONLY=job
PATH=$PATH
SR_QUEUE_ID=$a
SR_STATS_FD=3" "its environment is its own (and the PATH it was submitted with): none of the launcher's or the worker's"
is "$(sr-queue logs "$sp" "$a" --stream stderr)" to-stderr "its stderr comes back apart"
is "$(status "$s")" "$s completed exit 0" "a job under sr-limit completes"
is "$(sr-queue logs "$sp" "$s")" limited "with its output"
is "$(field "$s" limit.reason)" exit "sr-limit's stats come back through the job's directory"
like "$(field "$s" limit.wall_ms)" '^[0-9.]+$' "with its times"
is "$(status "$k")" "$k completed signal 9" "a job killed by a signal: the signal, not a number"
run sr-queue wait "$sp" "$k"
is "$rc" 137 "wait exits 128+9"
is "$(status "$t")" "$t completed timeout" "--timeout is enforced where the job runs"
run sr-queue wait "$sp" "$t"
is "$rc" 124 "wait exits 124"
is "$(status "$x")" "$x failed exec: unable to run /nonexistent/prog: No such file or directory" \
	"a program not found fails as it does here, named"
run sr-queue wait "$sp" "$x"
is "$rc" 127 "wait exits 127"
node_cpu=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["user_ns"] // 1000000, r["sys_ns"] // 1000000)' "$sp/done/$a/landed")
is "$(field "$a" user_ms) $(field "$a" sys_ms)" "$node_cpu" "the job's CPU time is the node's count (land's record), not the launcher's"

# --- cancellation --------------------------------------------------------------------
sr-queue run "$sp" --via env 2>"$T/worker.err" &
wpid=$!
at_exit "kill $wpid 2>/dev/null"
mkdir c n
c=$(cd c && sr-queue submit "$sp" -- sh -c 'echo $$ > main.pid; sleep 300 & echo $! > bg.pid; echo started; wait')
wait_for "the job to start" 10 test -s c/bg.pid
pids=$(cat c/main.pid c/bg.pid)
run sr-queue cancel "$sp" "$c"
is "$out" "$c cancelled" "sr-queue cancel stops a job run through a launcher"
is "$(live_pids $pids)" "" "every process of it is dead when cancel returns"
run sr-queue wait "$sp" "$c"
is "$rc" 98 "wait exits 98"
is "$(sr-queue logs "$sp" "$c")" started "its output so far is kept"
# What scancel does: the node's processes (land, the job) get SIGTERM.
n=$(cd n && sr-queue submit "$sp" -- sh -c 'echo $PPID > land.pid; echo $$ > main.pid; sleep 300')
wait_for "the job to start" 10 test -s n/main.pid
kill -TERM "$(cat n/land.pid)" "$(cat n/main.pid)"
run sr-queue wait "$sp" "$n" --timeout 20s
is "$rc" 98 "the step cancelled on the node (scancel): the job is cancelled"
is "$(live_pids "$(cat n/main.pid)")" "" "and its process is dead"

# --- a node that dies takes its job ------------------------------------------------------
l=$(sr-queue submit "$sp" -- sh -c 'kill -9 $PPID; sleep 300')
run sr-queue wait "$sp" "$l" --timeout 20s
is "$rc" 97 "land killed on the node: the job is lost"
like "$(field "$l" error)" "ended without saying how the job ended: .* \(the launcher ended: (exit [0-9]+|killed by signal [0-9]+)\)" "and its result says why, with how the launcher ended"
r=$(sr-queue submit "$sp" --retry 1 -- sh -c 'echo try >> "$0"; kill -9 $PPID; sleep 300' "$T/tries")
run sr-queue wait "$sp" "$r" --timeout 20s
is "$rc" 97 "with --retry 1 it is run again, then lost"
is "$(field "$r" attempts)" 2 "after two attempts"
is "$(grep -c try "$T/tries")" 2 "it ran twice"

# --- twenty at once -------------------------------------------------------------------
kill -TERM "$wpid"
wait "$wpid"
is "$?" 0 "the worker stops cleanly"
is "$(cat "$T/worker.err")" "" "and said nothing on stderr"
ids=
for i in $(seq 20); do ids="$ids $(sr-queue submit "$sp" -- sh -c "echo job-$i")"; done
sr-queue run "$sp" -j 20 --drain --via env
good=0
for id in $ids; do
	[ "$(status "$id")" = "$id completed exit 0" ] && good=$((good + 1))
done
is "$good" 20 "twenty jobs through -j 20 --via: all completed"

rel=$(sr-queue submit "$sp" -- sh -c 'echo relative')
(cd "$T" && sr-queue run spool --drain --via env)
is "$(status "$rel")" "$rel completed exit 0" "a spool given by a relative path: land gets it whole"

# --- launchers that fail ----------------------------------------------------------------
f=$(sr-queue submit "$sp" -- true)
run sr-queue run "$sp" --drain --via false
is "$rc" 0 "a launcher that fails does not stop the worker"
is "$(field "$f" reason)" via "the job failed, reason via"
like "$(field "$f" error)" 'did not start on a node: the --via launcher ended \(exit 1\)' \
	"its error says the job never reached a node"
run sr-queue wait "$sp" "$f"
is "$rc" 126 "wait exits 126"
run sr-queue run "$sp" --drain --via 'no-such-launcher --x'
is "$rc" 111 "a launcher that is not there: the worker exits 111"
like "$err" "fatal: unable to find the --via launcher 'no-such-launcher'" "and says so"
run sr-queue run "$sp" --drain --via ' '
is "$rc" 100 "--via with no words is a usage error"

# A node whose file system lacks the spool: the launcher runs land in a
# mount namespace where the spool's path is an empty tmpfs.
cat > "$T/blind" <<'EOF'
#!/bin/sh
exec unshare -rm sh -c 'mount -t tmpfs none "$0" && exec "$@"' "$HIDE" "$@"
EOF
chmod +x "$T/blind"
if unshare -rm true 2>/dev/null; then
	b=$(sr-queue submit "$sp" -- sh -c 'echo ran > "$0"' "$T/blind-ran")
	run env HIDE="$sp" sr-queue run "$sp" --drain --via "$T/blind"
	is "$(field "$b" state)" failed "a node that cannot see the spool: the job fails (no hang, not lost)"
	like "$(field "$b" error)" "cannot see the job's directory $sp/run/$b: No such file or directory" \
		"its result says the node cannot see the job's directory"
	like "$(field "$b" error)" "must be on storage every node sees" "and what to do"
	ok "the job did not run" test ! -e "$T/blind-ran"
else
	skip "a node that cannot see the spool" "unshare -rm does not work here"
fi

# --- sr-mcp --via / SR_MCP_VIA: the worker it starts uses the launcher -----------------
printf '#!/bin/sh\necho "$*" >> "%s"\nexec "$@"\n' "$T/via.log" > "$T/logvia"
chmod +x "$T/logvia"
# workers_of SPOOL: the pids of the workers serving SPOOL (a path of this test's own)
workers_of() {
	local p
	for p in /proc/[0-9]*; do
		case $(tr '\0' ' ' 2>/dev/null < "$p/cmdline") in
		"sr-queue run $1 "*) echo "${p#/proc/}" ;;
		esac
	done
	return 0
}
if have_userns; then
	call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_code","arguments":{"language":"bash","code":"echo through-$((6*7))"}}}'
	run mcp_call "$call" env "${mcp_san[@]+"${mcp_san[@]}"}" SR_MCP_VIA="$T/logvia" \
		SR_MCP_STATE_DIR="$T/mcp" SR_MCP_CPU_BUDGET=off sr-mcp
	like "$out" '"stdout":"through-42\\n"' "sr-mcp with SR_MCP_VIA: a run comes back"
	like "$out" '"status":"succeeded"' "succeeded"
	like "$(cat "$T/via.log" 2>/dev/null)" "sr-queue land $T/mcp/spool [0-9a-f]{32}" \
		"and it went through the launcher"
	w=$(workers_of "$T/mcp/spool")
	like "$w" '^[0-9]+$' "one worker serves the spool"
	for p in $w; do kill "$p"; done
else
	skip "sr-mcp with SR_MCP_VIA" "no user namespaces here: $userns_why"
fi

# --- without --via, nothing of it ------------------------------------------------------
p=$(sr-queue submit "$sp" -- "$lim" true)
sr-queue run "$sp" --drain
ok "a job run here leaves no landed or stats file" \
	test ! -e "$sp/done/$p/landed" -a ! -e "$sp/done/$p/stats"
is "$(field "$p" limit.reason)" exit "and its stats come through its fd, as before"

done_testing
