#!/bin/bash
# sr-queue: cancel of queued and running jobs (all of a running job's
# processes die), wait's own exit codes, and a worker that cannot record
# a result (it says so and the job is not lost).
. "$(dirname "$0")/lib.sh"

sp=$T/spool
cd "$T" || exit 1

# --- a queued job never starts --------------------------------------------------
q=$(sr-queue submit "$sp" -- sh -c 'echo ran > queued-ran')
run sr-queue cancel "$sp" "$q"
is "$rc" 0 "cancel of a queued job exits 0"
is "$out" "$q cancelled" "and prints its new state"
run sr-queue wait "$sp" "$q"
is "$rc" 98 "wait on a cancelled job exits 98"
sr-queue run "$sp" --drain
ok "a cancelled job never starts" test ! -e queued-ran
run sr-queue cancel "$sp" "$q"
is "$rc" 0 "cancelling it again is harmless"

# --- wait --timeout on a job nobody runs ----------------------------------------------
w=$(sr-queue submit "$sp" -- true)
run sr-queue wait "$sp" "$w" --timeout 200ms
is "$rc" 99 "wait --timeout on a queued job exits 99"
run sr-queue wait "$sp" "$w" --timeout 0 --json
is "$(json_get "$out" state)" queued "wait --timeout 0 --json reports the state"
run sr-queue wait "$sp" 0123456789abcdef0123456789abcdef
is "$rc:$err" "96:sr-queue: fatal: no job 0123456789abcdef0123456789abcdef in $sp" \
	"wait on an unknown job exits 96, a code no job of sr tools exits with on its own"
one=$(sr-queue submit "$T/one" -- sh -c 'exit 1')
sr-queue run "$T/one" --drain
run sr-queue wait "$T/one" "$one"
is "$rc" 1 "control: a job that exits 1 makes wait exit 1, which no longer means no such job"
run sr-queue wait "$T/one" 0123456789abcdef0123456789abcdef
is "$rc" 96 "... while in the same spool an unknown id gives 96"

# --- a running job dies with all its processes ------------------------------------------
job='sleep 300 & echo $! > bg.pid; setsid sleep 301 & echo $! > bg2.pid; echo $$ > main.pid; echo started; wait'
r=$(sr-queue submit "$sp" -- sh -c "$job")
sr-queue run "$sp" 2>"$T/worker.err" &
wpid=$!
at_exit "kill $wpid 2>/dev/null"
wait_for "the job to start" 10 test -s main.pid
is "$(sr-queue status "$sp" "$r")" "$r running" "the job is running"
pids=$(cat main.pid bg.pid bg2.pid)
run sr-queue cancel "$sp" "$r" --json
is "$rc" 0 "cancel of a running job exits 0"
is "$(json_get "$out" state)" cancelled "its state is cancelled"
is "$(live_pids $pids)" "" "every process of the job is dead when cancel returns"
run sr-queue wait "$sp" "$r"
is "$rc" 98 "wait exits 98"
is "$(sr-queue logs "$sp" "$r")" started "its output so far is kept"
run sr-queue cancel "$sp" "$w"
is "$rc" 1 "cancel of a finished job exits 1"
run sr-queue cancel "$sp" 0123456789abcdef0123456789abcdef
is "$rc" 1 "cancel of an unknown job exits 1"

# --- the worker keeps serving after a cancel -------------------------------------------
n=$(sr-queue submit "$sp" -- sh -c 'exit 7')
run sr-queue wait "$sp" "$n" --timeout 30s
is "$rc" 7 "the worker runs the next job"
kill -TERM "$wpid"
wait "$wpid"
is "$?" 0 "SIGTERM: the worker stops cleanly"
is "$(cat "$T/worker.err")" "" "and said nothing on stderr"

# --- no process of a job outlives it --------------------------------------------------
# survivors PIDFILE...: the pids in those files still alive, after waiting
# up to 10s for them to die
survivors() {
	local pids
	pids=$(cat "$@")
	wait_for "pids $pids to die" 10 ! live_pids $pids
	live_pids $pids
}
mkdir "$T/e" "$T/t" "$T/s"
bgjob='sleep 300 & echo $! > bg.pid; setsid sleep 301 & echo $! > bg2.pid'
e=$(cd "$T/e" && sr-queue submit "$sp" -- sh -c "$bgjob")
t=$(cd "$T/t" && sr-queue submit "$sp" --timeout 3s -- sh -c "$bgjob; sleep 30")
sr-queue run "$sp" --drain
is "$(sr-queue status "$sp" "$e")" "$e completed exit 0" "a job that leaves processes behind completes"
is "$(survivors "$T"/e/*.pid)" "" "the processes it left (setsid too) are killed"
is "$(sr-queue status "$sp" "$t")" "$t completed timeout" "--timeout ends a job"
is "$(survivors "$T"/t/*.pid)" "" "with all its processes"

# The supervisor killed: the job's main process dies (PDEATHSIG), the
# worker (a subreaper) kills what it left, and the job is settled as lost.
s=$(cd "$T/s" && sr-queue submit "$sp" -- sh -c "$bgjob; echo \$\$ > main.pid; sleep 300")
sr-queue run "$sp" 2>/dev/null &
wpid=$!
wait_for "the job to start" 10 test -s "$T/s/main.pid"
keeper=$(ps -o ppid= -p "$(cat "$T/s/main.pid")" | tr -d ' ')
ok "the job's parent is its supervisor, a child of the worker" \
	test "$(ps -o ppid= -p "$keeper" | tr -d ' ')" = "$wpid"
kill -KILL "$keeper"
is "$(survivors "$T"/s/*.pid)" "" "supervisor SIGKILLed: every process of the job dies"
run sr-queue wait "$sp" "$s" --timeout 30s
is "$rc" 97 "and the job is lost"
kill -TERM "$wpid"
wait "$wpid"

# --- SIGTERM while a job runs: it is finished first -------------------------------------
# (the job lasts long enough to be seen running on a loaded machine)
g=$(sr-queue submit "$sp" -- sh -c 'sleep 3; echo done')
sr-queue run "$sp" 2>/dev/null &
wpid=$!
is_running() { [ "$(sr-queue status "$sp" "$1")" = "$1 running" ]; }
wait_for "job $g to run" 5 is_running "$g"
kill -TERM "$wpid"
wait "$wpid"
is "$(sr-queue status "$sp" "$g")" "$g completed exit 0" \
	"SIGTERM lets the running job finish"

# --- a result that cannot be written --------------------------------------------------
if [ "$(id -u)" = 0 ]; then
	skip "a worker that cannot record a result" "root ignores file modes"
else
	x=$(sr-queue submit "$sp" -- sh -c 'echo ran >> x-ran')
	chmod 400 "$sp/queue/$x/job.jsonl"
	run sr-queue run "$sp" --drain
	is "$rc" 111 "the worker exits 111"
	like "$err" "unable to record the result of job $x" "and says which job"
	ok "the job ran" test -s x-ran
	is "$(ls "$sp/run")" "$x" "the job is still in run/ (not lost from the spool)"
	chmod 600 "$sp/run/$x/job.jsonl"
	run sr-queue recover "$sp" --json
	is "$(json_get "$out" lost)" 1 "recover settles it (lost: its result is unknown)"
	is "$(grep -c ran x-ran)" 1 "and it ran once"
fi

# --- --timeout: SIGTERM, then SIGKILL after --kill-after (as sr-limit) ------------------
status_of() { json_get "$(sr-queue status "$sp" "$1" --json)" "$2"; }
mkdir "$T/k1" "$T/k2" "$T/k3"
run sr-queue submit "$sp" --kill-after 2x -- true
is "$rc" 100 "a bad --kill-after: usage error"
# Traps TERM (first thing, then says it is ready), exits 3 from the trap.
# (Its --timeout leaves the shell ample time to set its trap on a loaded
# machine; its --kill-after is far off, so ending before it is no race.)
k1=$(cd "$T/k1" && sr-queue submit "$sp" --timeout 3s --kill-after 300s -- sh -c \
	'trap "echo term > got-term; exit 3" TERM; echo $$ > ready; sleep 300 & echo $! > bg.pid; wait')
# Ignores TERM: killed once --kill-after has passed.
k2=$(cd "$T/k2" && sr-queue submit "$sp" --timeout 3s --kill-after 700ms -- sh -c \
	'trap "echo term >> got-term" TERM; echo $$ > ready; while :; do sleep 0.05; done')
# The default --kill-after.
k0=$(sr-queue submit "$sp" --timeout 300s -- true)
sr-queue run "$sp" --drain
ok "the trapping job was ready before its timeout" test -s "$T/k1/ready"
is "$(cat "$T/k1/got-term" 2>/dev/null)" term "its --timeout sent it SIGTERM"
is "$(status_of "$k1" reason)/$(status_of "$k1" exit_code)" timeout/3 \
	"it ended by itself in the grace period: reason timeout, its exit code kept"
run sr-queue wait "$sp" "$k1"
is "$rc" 124 "and wait exits 124"
wall=$(status_of "$k1" wall_ms)
ok "it did not wait for --kill-after (wall ${wall}ms, well short of 300 s)" test "$wall" -lt 150000
is "$(survivors "$T"/k1/bg.pid)" "" "what it left behind is killed"
ok "the job that ignores TERM was ready" test -s "$T/k2/ready"
like "$(cat "$T/k2/got-term" 2>/dev/null)" "^term" "it got SIGTERM when its --timeout ran out"
is "$(status_of "$k2" reason)/$(status_of "$k2" signal)" timeout/9 \
	"it was killed with SIGKILL: reason timeout, signal 9"
wall=$(status_of "$k2" wall_ms)
ok "after --timeout and --kill-after (wall ${wall}ms >= 3700)" test "$wall" -ge 3700
is "$(status_of "$k2" kill_after_ms)" 700 "--kill-after is recorded with the job"
is "$(status_of "$k0" kill_after_ms)" 2000 "2s by default"
# A cancel in the grace period kills at once (the reason stays timeout).
k3=$(cd "$T/k3" && sr-queue submit "$sp" --timeout 3s --kill-after 300s -- sh -c \
	'trap "echo term > got-term" TERM; echo $$ > ready; while :; do sleep 0.05; done')
sr-queue run "$sp" 2>/dev/null &
wpid=$!
wait_for "job k3's SIGTERM" 15 test -s "$T/k3/got-term"
ok "the job got SIGTERM and lives on in its grace period" test -s "$T/k3/got-term"
run sr-queue cancel "$sp" "$k3" --timeout 30s
is "$rc" 1 "cancel in the grace period: the job ends now, not cancelled (it timed out)"
is "$(status_of "$k3" reason)/$(status_of "$k3" signal)" timeout/9 "reason timeout, signal 9"
is "$(survivors "$T"/k3/ready)" "" "its process is dead"
kill -TERM "$wpid"
wait "$wpid"

done_testing
