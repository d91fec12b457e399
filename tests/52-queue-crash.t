#!/bin/bash
# sr-queue crash safety: a worker SIGKILLed at each step of claiming,
# running and finishing (test-only crash points, SR_QUEUE_CRASH), then
# recovery: every job in exactly one state, none run twice (or, with
# --retry, run again and counted). A worker killed while its job runs: the
# job's processes die too. A submitter killed mid-submit: nothing visible,
# leftovers cleaned.
. "$(dirname "$0")/lib.sh"

# A job that appends its token to a log: "$app" TOKEN LOG
app=$T/append
printf '#!/bin/sh\necho "$1" >> "$2"\n' > "$app"
chmod +x "$app"

# where SPOOL ID: the directories holding the job (exactly one expected)
where() {
	local d w=""
	for d in tmp queue run done; do [ -e "$1/$d/$2" ] && w="$w$d "; done
	echo "${w% }"
}
# state SPOOL ID: the job's state as sr-queue status gives it
state() { sr-queue status "$1" "$2" | awk '{print $2}'; }
# settled SPOOL ID: the state once no keeper holds the job any more
running() { [ "$(state "$1" "$2")" = running ]; }
settled() {
	wait_for "job $2 to leave running" 10 ! running "$1" "$2"
	state "$1" "$2"
}
ran() { grep -c "^$1\$" "$T/ran.log" 2>/dev/null || true; }
# quiet CMD: run it with no output, not even the shell's "Killed" line
quiet() { ( "$@"; exit $? ) >/dev/null 2>&1; }

# crash POINT RETRY WANT_AFTER_RECOVER WANT_FINAL RUNS
crash() {
	local point=$1 retry=$2 want1=$3 want2=$4 runs=$5
	local sp=$T/sp-$point-$retry tok="tok-$point-$retry"
	local id
	id=$(sr-queue submit "$sp" --retry "$retry" -- "$app" "$tok" "$T/ran.log")
	quiet env SR_QUEUE_CRASH="$point" sr-queue run "$sp" --drain
	local rc=$?
	is "$rc" 137 "$point: the worker died there (SIGKILL)"
	local w
	w=$(where "$sp" "$id")
	like "$w" '^(queue|run|done)$' "$point: the job is in exactly one directory ($w)"
	is "$(settled "$sp" "$id")" "$want1" "$point (retry $retry): $want1 after the crash"
	sr-queue recover "$sp" >/dev/null
	sr-queue run "$sp" --drain >/dev/null
	is "$(sr-queue status "$sp" "$id" | awk '{print $2}')" "$want2" \
		"$point (retry $retry): $want2 in the end"
	like "$(ran "$tok")" "^($runs)$" "$point (retry $retry): ran $runs time(s)"
	is "$(where "$sp" "$id")" done "$point: the job ends in done/ only"
}

crash claim:after-lock 0 queued completed 1
crash claim:after-rename 0 lost lost 0
crash claim:after-rename 1 queued completed 1
crash claim:after-sync 0 lost lost 0
crash run:after-fork 0 lost lost 0
crash finish:before-result 0 lost lost 1
crash finish:before-result 1 queued completed 2
crash finish:after-result 0 completed completed 1
crash finish:after-move 0 completed completed 1

sp=$T/sp-attempts
id=$(sr-queue submit "$sp" --retry 1 -- "$app" tok-attempts "$T/ran.log")
quiet env SR_QUEUE_CRASH=finish:before-result sr-queue run "$sp" --drain
sr-queue run "$sp" --drain >/dev/null
is "$(json_get "$(sr-queue status "$sp" "$id" --json)" attempts)" 2 \
	"a requeued job counts its attempts"

# --- SIGKILL of a worker while its job runs ------------------------------------------
sp=$T/sp-kill
job='sleep 300 & echo $! > bg.pid; setsid sleep 301 & echo $! > bg2.pid; echo $$ > main.pid; wait'
mkdir "$T/k1" "$T/k2"
k1=$(cd "$T/k1" && sr-queue submit "$sp" -- sh -c "$job")
k2=$(cd "$T/k2" && sr-queue submit "$sp" --retry 1 -- sh -c "$job")
sr-queue run "$sp" -j 2 2>/dev/null &
wpid=$!
wait_for "both jobs running" 10 test -s "$T/k1/main.pid" -a -s "$T/k2/main.pid"
pids=$(cat "$T"/k1/*.pid "$T"/k2/*.pid)
is "$(echo $pids | wc -w)" 6 "two jobs running, three processes each"
(sr-queue wait "$sp" "$k1" >/dev/null 2>&1; echo $? > "$T/waited") &
waiter=$!
kill -KILL "$wpid"
wait "$wpid" 2>/dev/null
disown "$wpid" 2>/dev/null
wait_for "the jobs' processes to die" 10 ! live_pids $pids
is "$(live_pids $pids)" "" "every process of both jobs died with the worker (setsid ones too)"
wait "$waiter"
is "$(cat "$T/waited")" 97 "a waiting client sees the job lost (wait exits 97)"
is "$(settled "$sp" "$k1")" lost "the job is lost"
is "$(settled "$sp" "$k2")" queued "with --retry 1 it is queued again"
rm -f "$T"/k2/*.pid
sr-queue run "$sp" --drain >/dev/null 2>&1 &
wait_for "the requeued job to run" 10 test -s "$T/k2/main.pid"
ok "the requeued job runs again" test -s "$T/k2/main.pid"
run sr-queue cancel "$sp" "$k2"
is "$rc" 0 "(and can be cancelled)"
wait

# --- a submitter killed mid-submit ---------------------------------------------------
sp=$T/sp-submit
sr-queue submit "$sp" -- true >/dev/null # the spool exists
for point in submit:after-mkdir submit:after-write; do
	quiet env SR_QUEUE_CRASH="$point" sr-queue submit "$sp" -- "$app" "tok-$point" "$T/ran.log"
	is "$?" 137 "$point: the submitter died there"
done
is "$(sr-queue list "$sp" | wc -l)" 1 "nothing half-submitted is visible"
is "$(ls "$sp/tmp" | wc -l)" 2 "two leftovers in tmp/"
run sr-queue recover "$sp" --json
is "$(json_get "$out" tmp_removed)" 0 "recover leaves fresh tmp/ entries alone"
sleep 2.2 # TMP_MIN_AGE_S: a live submitter always holds its flock well before
run sr-queue recover "$sp" --json
is "$(json_get "$out" tmp_removed)" 2 "recover removes dead submitters' leftovers"
is "$(ls "$sp/tmp" | wc -l)" 0 "tmp/ is empty"
quiet env SR_QUEUE_CRASH=submit:after-rename sr-queue submit "$sp" -- "$app" tok-late "$T/ran.log"
is "$?" 137 "submit:after-rename: the submitter died there"
sr-queue run "$sp" --drain >/dev/null
is "$(ran tok-late)" 1 "a job renamed into queue/ is whole: it runs"
is "$(ran tok-submit:after-mkdir)$(ran tok-submit:after-write)" 00 "the others never run"

done_testing
