#!/bin/bash
# sr-queue: 8 concurrent submitters x 500 jobs, 3 workers (-j 2) serving the
# spool while it fills. Every job appends its token and its id to a shared
# log (O_APPEND): every job must have run exactly once.
. "$(dirname "$0")/lib.sh"

subs=8
per=500
total=$((subs * per))
sp=$T/spool
log=$T/ran.log

cc_probe append '
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
	char line[256];
	const char *id = getenv("SR_QUEUE_ID");
	int n = snprintf(line, sizeof line, "%s %s\n", argv[1], id ? id : "-");
	int fd = open(argv[2], O_WRONLY | O_APPEND | O_CREAT, 0600);
	return fd < 0 || write(fd, line, n) != n;
}'

workers=()
for w in 1 2 3; do
	sr-queue run "$sp" -j 2 2>"$T/worker$w.err" &
	workers+=($!)
done
at_exit 'kill ${workers[@]} 2>/dev/null'

subpids=()
for s in $(seq 1 $subs); do
	(
		for i in $(seq 1 $per); do
			id=$(sr-queue submit "$sp" -- "$T/append" "s$s-$i" "$log") || exit 1
			echo "s$s-$i $id"
		done > "$T/submitted.$s"
	) &
	subpids+=($!)
done
failed=0
for p in "${subpids[@]}"; do wait "$p" || failed=$((failed + 1)); done
is "$failed" 0 "all $subs submitters succeeded"
cat "$T"/submitted.* | sort > "$T/want"
is "$(wc -l < "$T/want")" "$total" "$total ids printed"

# Wait for the last job with the tool itself, then for the queue to empty.
for id in $(awk '{print $2}' "$T/want" | sort | tail -n 20); do
	sr-queue wait "$sp" "$id" --timeout 120s >/dev/null
done
all_done() { [ "$(ls "$sp/done" | wc -l)" -ge "$total" ]; }
wait_for "all $total jobs in done/" 60 all_done
kill -TERM "${workers[@]}"
for p in "${workers[@]}"; do wait "$p"; done

sort "$log" > "$T/got"
is "$(wc -l < "$T/got")" "$total" "the log has exactly $total lines"
is "$(awk '{print $1}' "$T/got" | sort -u | wc -l)" "$total" "no token ran twice"
ok "every job ran once, with its own id" cmp -s "$T/got" "$T/want"
is "$(ls "$sp/done" | wc -l)" "$total" "every job is in done/"
is "$(ls "$sp/queue" "$sp/run" "$sp/tmp" | grep -c '^[0-9a-f]')" 0 \
	"queue/, run/ and tmp/ are empty"
is "$(cat "$sp"/done/*/job.jsonl | grep -c '"state":"completed","reason":"exit","exit_code":0')" \
	"$total" "every result says completed, exit 0"
is "$(cat "$T"/worker*.err)" "" "the workers said nothing on stderr"

done_testing
