#!/bin/bash
# sr-queue: submit, run, status, wait codes, logs (paging, caps), env, cwd,
# stdin, failures, the sr-limit stats fd, gc, privacy of the spool.
. "$(dirname "$0")/lib.sh"

sp=$T/spool
cd "$T" || exit 1
drain() { sr-queue run "$1" --drain -j 4; }
# state FIELD of job ID (from status --json)
field() { json_get "$(sr-queue status "$sp" "$1" --json)" "$2"; }

# --- usage -----------------------------------------------------------------
run sr-queue
is "$rc" 100 "no command: usage error"
run sr-queue frobnicate "$sp"
is "$rc" 100 "unknown command: usage error"
run sr-queue submit "$sp"
is "$rc" 100 "submit without a program: usage error"
run sr-queue submit "$sp" --max-output 12Q -- true
is "$rc" 100 "bad --max-output: usage error"
like "$err" "max-output" "the message names the option"
run sr-queue status "$sp" ../../etc
is "$rc" 100 "a malformed id is refused (no path games)"
run sr-queue run "$sp" --cpu-budget 10s
is "$rc" 100 "--cpu-budget without a window: usage error"
run sr-queue --help
is "$rc" 0 "--help exits 0"
like "$out" "submit SPOOL" "--help prints the usage"

# --- submit, ids, privacy -------------------------------------------------------
run bash -c "umask 000; sr-queue submit '$sp' -- sh -c 'echo out; echo err >&2; exit 3'"
is "$rc" 0 "submit exits 0"
id=$out
like "$id" '^[0-9a-f]{32}$' "submit prints a 32-hex-digit id"
id2=$(sr-queue submit "$sp" -- true)
unlike "${id2:16}" "${id:16}" "ids carry fresh random bits"
[[ "$id" < "$id2" ]]; is "$?" 0 "ids sort in submission order"
is "$(stat -c %a "$sp" "$sp/queue" "$sp/queue/$id" | sort -u)" 700 \
	"spool and job directories are 0700 (even with umask 000)"
is "$(stat -c %a "$sp/queue/$id/job.jsonl")" 600 "job files are 0600"
run sr-queue status "$sp" "$id"
is "$out" "$id queued" "status: queued"
run sr-queue list "$sp" --state queued
is "$(printf '%s\n' "$out" | wc -l)" 2 "list --state queued shows both jobs"
run sr-queue status "$sp" 0123456789abcdef0123456789abcdef
is "$rc" 1 "status of an unknown job exits 1"

# --- run, wait, logs -------------------------------------------------------------
ok "run --drain exits 0 when the queue is empty" drain "$sp"
run sr-queue wait "$sp" "$id"
is "$rc" 3 "wait exits with the job's exit code"
is "$(field "$id" state)" completed "state completed"
is "$(field "$id" exit_code)" 3 "result has exit_code 3"
is "$(sr-queue logs "$sp" "$id")" out "logs: stdout"
is "$(sr-queue logs "$sp" "$id" --stream stderr)" err "logs --stream stderr"
is "$(field "$id" stdout_bytes)/$(field "$id" stdout_total)" 4/4 "byte counts recorded"
ls "$sp/queue" "$sp/run" | grep -q '^[0-9a-f]' && r=1 || r=0
is "$r" 0 "nothing left in queue/ or run/"

# --- environment, cwd, stdin ------------------------------------------------------
mkdir -p "$T/wd"
export SRQ_TEST_VAR=outer
e1=$(sr-queue submit "$sp" --env A=1 --env A=2 -- sh -c 'echo "A=$A V=${SRQ_TEST_VAR-unset} ID=$SR_QUEUE_ID"')
e2=$(sr-queue submit "$sp" --keep-env --env SRQ_TEST_VAR=inner -- sh -c 'echo "V=$SRQ_TEST_VAR"')
e3=$(cd "$T/wd" && sr-queue submit "$sp" -- pwd)
e4=$(sr-queue submit "$sp" --cwd "$T/wd" -- pwd)
printf 'line one\nline two\n' > "$T/in.txt"
e5=$(sr-queue submit "$sp" --stdin "$T/in.txt" -- wc -l)
e6=$(printf 'piped' | sr-queue submit "$sp" --stdin - -- cat)
e7=$(sr-queue submit "$sp" -- sh -c 'read x; echo "got[$x]"')
# (each fd tested with builtins: a pipeline's ends would show for a moment)
e8=$(umask 027; sr-queue submit "$sp" -- sh -c 'umask; for f in 0 1 2 3 4 5 6 7 8 9; do [ -e /proc/$$/fd/$f ] && printf "%s " $f; done')
(exec 7>"$T/worker-fd"; drain "$sp")
is "$(sr-queue logs "$sp" "$e1")" "A=2 V=unset ID=$e1" \
	"--env sets (last wins), nothing else leaks in, SR_QUEUE_ID is the id"
is "$(sr-queue logs "$sp" "$e2")" "V=inner" "--keep-env keeps the submitter's env; --env overrides"
is "$(sr-queue logs "$sp" "$e3")" "$T/wd" "the job runs in the submitter's cwd"
is "$(sr-queue logs "$sp" "$e4")" "$T/wd" "--cwd sets the directory"
is "$(sr-queue logs "$sp" "$e5" | tr -d ' ')" 2 "--stdin FILE is the job's stdin"
is "$(sr-queue logs "$sp" "$e6")" piped "--stdin - copies the submitter's stdin"
is "$(sr-queue logs "$sp" "$e7")" "got[]" "without --stdin, stdin is /dev/null"
is "$(sr-queue logs "$sp" "$e8")" "$(printf '0027\n0 1 2 3 ')" \
	"the job gets the submitter's umask and fds 0-3 only (not the worker's fd 7)"

# --- the job's PATH ----------------------------------------------------------------
# Without --keep-env a job gets the submitter's PATH, its relative entries
# left out (they would be looked up in the job's directory, which an
# earlier job could have written), so that a chain as typed at the shell
# (sr-limit ... sr-jail ...) runs as a job too.
mkdir -p "$T/bin" "$T/planted"
printf '#!/bin/sh\necho found on PATH\n' >"$T/bin/sq-on-path"
printf '#!/bin/sh\necho planted ran\n' >"$T/planted/sq-planted"
chmod +x "$T/bin/sq-on-path" "$T/planted/sq-planted"
p1=$(PATH="$T/bin:$PATH" sr-queue submit "$sp" -- sq-on-path)
p2=$(sr-queue submit "$sp" -- sr-limit --timeout 10s sh -c 'echo sr-limit ran')
p3=$(cd "$T/planted" && PATH=".::$PATH" sr-queue submit "$sp" -- sq-planted)
p4=$(cd "$T/planted" && PATH=".::$PATH" sr-queue submit "$sp" --keep-env -- sq-planted)
p5=$(PATH="$T/bin:$PATH" sr-queue submit "$sp" --env PATH=/usr/bin:/bin -- sq-on-path)
p6=$(env -u PATH "$SR_ROOT/sr-queue/sr-queue" submit "$sp" -- /bin/sh -c 'echo "$PATH"')
drain "$sp"
is "$(sr-queue logs "$sp" "$p1")" "found on PATH" "a program on the submitter's PATH runs without --keep-env"
is "$(sr-queue logs "$sp" "$p2")" "sr-limit ran" "sr-limit, found on PATH, runs as a job without --keep-env"
run sr-queue wait "$sp" "$p3"
is "$rc" 127 "the PATH's relative entries (. and empty) are left out: a program in the job's directory is not found"
is "$(sr-queue logs "$sp" "$p4")" "planted ran" "control: with --keep-env the submitter's PATH, . included, finds it"
run sr-queue wait "$sp" "$p5"
is "$rc" 127 "--env PATH= replaces the submitter's PATH"
is "$(sr-queue logs "$sp" "$p6")" "/usr/local/bin:/usr/bin:/bin:$SR_ROOT/sr-queue" \
	"a submitter with no PATH: /usr/local/bin:/usr/bin:/bin and sr-queue's own directory"

# --- failures, signals, timeouts ---------------------------------------------------------
mkdir "$T/gone"
f1=$(sr-queue submit "$sp" -- /nonexistent/prog)
f2=$(sr-queue submit "$sp" --cwd "$T/gone" -- true)
rmdir "$T/gone"
f3=$(sr-queue submit "$sp" -- sh -c 'kill -9 $$')
f4=$(sr-queue submit "$sp" --timeout 200ms -- sleep 30)
drain "$sp"
run sr-queue wait "$sp" "$f1"
is "$rc" 127 "program not found: wait exits 127"
is "$(field "$f1" state)/$(field "$f1" reason)" failed/exec "state failed, reason exec"
run sr-queue wait "$sp" "$f2"
is "$rc" 126 "working directory gone: wait exits 126"
is "$(field "$f2" state)/$(field "$f2" reason)" failed/cwd "state failed, reason cwd"
run sr-queue wait "$sp" "$f3"
is "$rc" 137 "killed by SIGKILL: wait exits 128+9"
is "$(field "$f3" signal)" 9 "result has signal 9"
run sr-queue wait "$sp" "$f4"
is "$rc" 124 "--timeout expired: wait exits 124"
is "$(field "$f4" reason)" timeout "reason timeout"
run sr-queue wait "$sp" "$f4" --json
is "$(json_get "$out" state)" completed "wait --json prints the status"

# --- stats fd (sr-limit contract) --------------------------------------------------
s1=$(sr-queue submit "$sp" -- sh -c 'echo "{\"reason\":\"exit\",\"exit_code\":5}" >&"$SR_STATS_FD"; echo "fd=$SR_STATS_FD"')
s2=$(sr-queue submit "$sp" -- sh -c 'echo "not json" >&"$SR_STATS_FD"')
drain "$sp"
is "$(sr-queue logs "$sp" "$s1")" "fd=3" "the job gets SR_STATS_FD=3"
is "$(field "$s1" limit.exit_code)" 5 "JSON written to SR_STATS_FD is kept in the result"
is "$(field "$s2" limit)" "<missing>" "garbage on the stats fd is ignored"
if [ -x "$SR_ROOT/sr-limit/sr-limit" ]; then
	s3=$(sr-queue submit "$sp" --keep-env -- sr-limit -- sh -c 'echo "inner=${SR_STATS_FD-unset}"; exit 4')
	drain "$sp"
	run sr-queue wait "$sp" "$s3"
	is "$rc" 4 "through sr-limit: the job's code"
	is "$(field "$s3" limit.exit_code)" 4 "sr-limit's stats reach the result"
	is "$(sr-queue logs "$sp" "$s3")" "inner=unset" "sr-limit hides SR_STATS_FD from its child"
else
	skip "sr-limit stats in the result" "sr-limit is not built"
fi

# --- logs paging and output caps ----------------------------------------------------
p1=$(sr-queue submit "$sp" -- seq 1 2000)
p2=$(sr-queue submit "$sp" --max-output 100 -- sh -c 'seq 1 1000; echo tail >&2')
drain "$sp"
seq 1 2000 > "$T/want"
: > "$T/got"
off=0
for _ in $(seq 1 20); do
	page=$(sr-queue logs "$sp" "$p1" --offset "$off" --max-bytes 1000 --json)
	printf '%s' "$(json_get "$page" data)" >> "$T/got"
	off=$(json_get "$page" next_offset)
	[ "$(json_get "$page" eof)" = true ] && break
done
# json_get strips the final newline of each page's data; compare raw pages too
sr-queue logs "$sp" "$p1" --offset 0 --max-bytes 5000 > "$T/raw1"
sr-queue logs "$sp" "$p1" --offset 5000 --max-bytes 100000 > "$T/raw2"
ok "raw pages put together are the whole output" cmp -s <(cat "$T/raw1" "$T/raw2") "$T/want"
is "$off" "$(stat -c %s "$T/want")" "json pages end at the size of the output"
is "$(tr -d '\n' < "$T/got")" "$(tr -d '\n' < "$T/want")" "json pages carry the output"
is "$(field "$p2" stdout_bytes)/$(field "$p2" stdout_total)" "100/$(seq 1 1000 | wc -c)" \
	"--max-output caps what is stored and counts the rest"
run sr-queue logs "$sp" "$p2"
is "$rc:$(wc -c < "$T/.out")" 0:100 "logs returns the stored 100 bytes, exit 0 (the cut was asked for)"
like "$err" "output cut: [0-9]+ bytes of stdout not stored \(past its --max-output of 100 bytes\)" \
	"... and says the rest was cut"
is "$(json_get "$(sr-queue logs "$sp" "$p2" --json 2>/dev/null)" truncated)" true "logs --json says truncated"
is "$(sr-queue logs "$sp" "$p2" --stream stderr)" tail "stderr has its own cap"

# --- gc -----------------------------------------------------------------------------
q=$(sr-queue submit "$sp" -- true) # stays queued: gc must not touch it
ndone=$(ls "$sp/done" | wc -l)
run sr-queue gc "$sp" --older-than 1h --json
is "$(json_get "$out" removed)" 0 "gc --older-than 1h keeps recent jobs"
run sr-queue gc "$sp" --keep 3 --json
is "$(json_get "$out" removed)" "$((ndone - 3))" "gc --keep 3 removes the others"
is "$(ls "$sp/done" | wc -l)" 3 "three finished jobs remain"
ok "the newest finished job is kept" test -d "$sp/done/$p2"
run sr-queue status "$sp" "$id"
is "$rc" 1 "a collected job is gone"
run sr-queue gc "$sp"
is "$(ls "$sp/done" | wc -l)" 0 "gc without options removes every finished job"
is "$(sr-queue status "$sp" "$q")" "$q queued" "gc never touches queued jobs"
is "$(ls "$sp/tmp" | wc -l)" 0 "nothing left in tmp/"

# run --idle: a worker that stays for the next job, then goes.
idle=$T/idle
sr-queue submit "$idle" -- true >/dev/null
sr-queue run "$idle" --idle 1500ms 2>/dev/null &
wpid=$!
id=$(sr-queue submit "$idle" -- sh -c 'echo second')
run sr-queue wait "$idle" "$id" --timeout 10s
is "$rc" 0 "run --idle: a job submitted while it waits is run"
ok "... and the worker is still there just after" kill -0 "$wpid"
id=$(sr-queue submit "$idle" -- true)
run sr-queue wait "$idle" "$id" --timeout 10s
is "$rc" 0 "... a later job too, by the same worker"
wait_for "the idle worker to exit" 10 ! kill -0 "$wpid"
nok "... which exits once idle for --idle (1.5s)" kill -0 "$wpid"
wait "$wpid"
is "$?" 0 "... with status 0"
run sr-queue run "$idle" --idle 2x
is "$rc" 100 "--idle takes a duration"

done_testing
