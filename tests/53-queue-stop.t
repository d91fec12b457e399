#!/bin/bash
# sr-queue run told to stop (SIGTERM, SIGINT) while jobs run: it says in
# one line that it waits for them, and how many, then waits; a second
# signal ends them, and is not announced again. With nothing running it
# stops at once, without the line (the control: the line comes from the
# running jobs, not from the signal alone).
. "$(dirname "$0")/lib.sh"
set -m # the worker in its own process group, SIGINT not ignored in it

sp=$T/spool
cd "$T" || exit 1
# A job that runs until the file go-N exists (no clock involved).
hold='echo $$ > started-%s; while [ ! -e go-%s ]; do sleep 0.05; done; echo done-%s'
submit() { sr-queue submit "$sp" -- sh -c "$(printf "$hold" "$1" "$1" "$1")"; }
running() { [ "$(sr-queue status "$sp" "$1")" = "$1 running" ]; }
note='sr-queue: note: stopping: waiting for %s running job(s) to end; a second SIGTERM or SIGINT kills them'

for sig in TERM INT; do
	a=$(submit "$sig")
	sr-queue run "$sp" 2>"$T/err-$sig" &
	wpid=$!
	wait_for "job $a to run" 30 running "$a"
	kill -"$sig" "$wpid"
	wait_for "the worker's note on SIG$sig" 30 grep -q stopping "$T/err-$sig"
	is "$(cat "$T/err-$sig")" "$(printf "$note" 1)" "SIG$sig with a job running: one line, saying it waits for 1 job"
	ok "... and it waits: the worker is still there" kill -0 "$wpid"
	is "$(sr-queue status "$sp" "$a")" "$a running" "... and so is the job"
	touch "go-$sig"
	wait_pid 60 "$wpid"
	is "$wst" 0 "the worker exits 0 once the job has ended"
	is "$(sr-queue status "$sp" "$a")" "$a completed exit 0" "... and the job completed"
done

# Two jobs, and a second signal: they are killed, the line is said once.
b=$(submit b1) c=$(submit b2)
sr-queue run "$sp" -j 2 2>"$T/err-two" &
wpid=$!
wait_for "jobs $b and $c to run" 30 running "$b"
wait_for "job $c to run" 30 running "$c"
kill -TERM "$wpid"
wait_for "the worker's note" 30 grep -q stopping "$T/err-two"
kill -INT "$wpid"
wait_pid 60 "$wpid"
is "$(cat "$T/err-two")" "$(printf "$note" 2)" "two jobs running: 'waiting for 2', said once for two signals"
like "$(sr-queue status "$sp" "$b") $(sr-queue status "$sp" "$c")" "^$b lost.* $c lost" \
	"the second signal ended both jobs (lost, as after a crash)"

# Control: no job running, so nothing to wait for and nothing said.
sr-queue run "$sp" 2>"$T/err-idle" &
wpid=$!
# (a job it ran and finished shows it is in its loop, and idle again)
i=$(sr-queue submit "$sp" -- true)
completed() { [ "$(sr-queue status "$sp" "$1")" = "$1 completed exit 0" ]; }
wait_for "the idle worker to run job $i" 30 completed "$i"
kill -TERM "$wpid"
wait_pid 60 "$wpid"
is "$wst:$(cat "$T/err-idle")" "0:" "control: SIGTERM with no job running stops the worker at once, silently"
done_testing
