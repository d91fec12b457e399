#!/bin/bash
# sr-queue submit: the order of the steps that make a job durable and let
# a worker take it at once, watched with strace -y (which names each
# descriptor's file). job.jsonl and the job's directory are fsynced before
# the job shows in queue/; its lock is released before that rename too, so
# that a worker the rename wakes does not find it locked and come back
# later (it retried after 20 ms, which a third of sr-mcp's calls paid).
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip_all "strace is not installed"
# LeakSanitizer (make check SAN=address) cannot run under ptrace.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
sp="$T/spool"
strace -f -y -qq -o "$T/trace" -e trace=flock,fsync,renameat,renameat2 \
	sr-queue submit "$sp" -- true > "$T/id"
is "$?" 0 "the job was submitted"
id=$(cat "$T/id")
ok "it is in queue/" test -d "$sp/queue/$id"
# One letter per call: j job.jsonl's fsync, d the job directory's (in
# tmp/), u its unlock, q the rename into queue/, Q queue/'s fsync.
order=$(awk -v id="$id" '
	/fsync\(.*\/job\.jsonl>/ { printf "j"; next }
	/fsync\(.*\/tmp\/[0-9a-f]+>/ { printf "d"; next }
	/flock\(.*\/tmp\/[0-9a-f]+>, LOCK_UN/ { printf "u"; next }
	/renameat2?\(.*\/tmp>.*\/queue>/ { printf "q"; next }
	/fsync\(.*\/queue>/ { printf "Q"; next }' "$T/trace")
is "$order" "jduqQ" "job.jsonl, then its directory, fsynced; unlocked; renamed into queue/; queue/ fsynced"
done_testing
