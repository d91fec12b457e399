#!/bin/bash
# sr-queue fair sharing: round-robin across tenants, and a per-tenant CPU
# budget that makes an over-budget tenant wait (not fail) while another
# tenant's jobs are queued, and never a lone tenant. Assertions are on
# order and on what the results record (queued_reason), never on speed.
. "$(dirname "$0")/lib.sh"

# A job that appends its token to a log: "$app" TOKEN LOG
app=$T/append
printf '#!/bin/sh\necho "$1" >> "$2"\n' > "$app"
chmod +x "$app"
cc_probe spin '
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv) {
	long ms = atol(argv[1]);
	volatile unsigned long x = 0;
	struct timespec ts;
	do {
		for (int i = 0; i < 100000; i++)
			x++;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	} while (ts.tv_sec * 1000L + ts.tv_nsec / 1000000L < ms);
	return 0;
}'

field() { json_get "$(sr-queue status "$1" "$2" --json)" "$3"; }

# --- round-robin --------------------------------------------------------------------
sp=$T/rr
log=$T/rr.log
for i in $(seq 1 8); do sr-queue submit "$sp" --tenant a -- "$app" "a$i" "$log" >/dev/null; done
for i in 1 2 3; do sr-queue submit "$sp" --tenant b -- "$app" "b$i" "$log" >/dev/null; done
sr-queue run "$sp" --drain -j 1
is "$(wc -l < "$log")" 11 "all 11 jobs ran"
first6=$(head -n 6 "$log" | cut -c1 | tr -d '\n')
like "$first6" '^(ab){3}$|^(ba){3}$' "the first six alternate between the tenants ($first6)"
is "$(grep a "$log" | tr -d '\n')" a1a2a3a4a5a6a7a8 "oldest first within tenant a"
is "$(grep b "$log" | tr -d '\n')" b1b2b3 "oldest first within tenant b"

# --- CPU budget: work-conserving ---------------------------------------------------
# The budget only holds a tenant back while another tenant's jobs wait. A
# budget of 100ms per hour: what a tenant spends does not come back while
# the test runs, so a scheduler that made a tenant wait for its own
# budget would hold these jobs for an hour (the test's time bound fails it).
qfield() { json_get "$(sr-queue status "$1" "$2" --json)" "$3" 2>/dev/null; }

# A lone tenant far past its budget: every job runs, none waited for it.
sp=$T/lone
a=()
for i in $(seq 1 5); do a+=("$(sr-queue submit "$sp" --tenant a -- "$T/spin" 150)"); done
sr-queue run "$sp" --drain -j 1 --cpu-budget 100ms/1h 2>"$T/lone.err"
states="" reasons=""
for id in "${a[@]}"; do
	states="$states $(field "$sp" "$id" state)"
	reasons="$reasons $(qfield "$sp" "$id" queued_reason)"
done
is "$states" " completed completed completed completed completed" \
	"a lone tenant 5 x its budget: every job ran, none waited for it"
cpu=$(( $(field "$sp" "${a[4]}" user_ms) + $(field "$sp" "${a[4]}" sys_ms) ))
ok "a job's CPU time is measured (${cpu}ms), so the budget was spent" test "$cpu" -ge 120
unlike "$reasons" budget "no job says it waited for the budget (queued_reason:$reasons)"
like "$reasons" slots "they say they waited for the one slot (queued_reason:$reasons)"
ok "queued_ms is recorded" test "$(field "$sp" "${a[4]}" queued_ms)" -ge 0
is "$(cat "$T/lone.err")" "" "the worker said nothing on stderr"

# Two tenants: a (heavy) past its budget, b (light) within it. Once b's
# jobs are queued, b's go before a's queued ones; a's say they waited for
# the budget, b's do not. Order, not time.
sp=$T/budget
a=()
for i in $(seq 1 5); do a+=("$(sr-queue submit "$sp" --tenant a -- "$T/spin" 150)"); done
sr-queue run "$sp" -j 1 --cpu-budget 100ms/1h 2>"$T/worker.err" &
wpid=$!
at_exit "kill $wpid 2>/dev/null"
sr-queue wait "$sp" "${a[0]}" --timeout 60s >/dev/null
b=()
for i in 1 2 3; do b+=("$(sr-queue submit "$sp" --tenant b -- true)"); done
for id in "${b[@]}" "${a[@]}"; do sr-queue wait "$sp" "$id" --timeout 60s >/dev/null; done
kill -TERM "$wpid"
wait "$wpid"
states="" reasons=""
for id in "${a[@]}"; do states="$states $(field "$sp" "$id" state)"; done
is "$states" " completed completed completed completed completed" \
	"every over-budget job waited and then ran (none failed)"
b_end=$(field "$sp" "${b[2]}" finished_ms)
a2_start=$(field "$sp" "${a[2]}" started_ms)
ok "tenant b's jobs all ran before tenant a's queued backlog ($b_end <= $a2_start)" \
	test "$b_end" -le "$a2_start"
for id in "${b[@]}"; do reasons="$reasons $(qfield "$sp" "$id" queued_reason)"; done
unlike "$reasons" budget "b's jobs did not wait for a budget (queued_reason:$reasons)"
is "$(qfield "$sp" "${a[4]}" queued_reason)" budget "a's last job says it waited for its budget"
is "$(qfield "$sp" "${a[2]}" queued_reason)" budget "so does the first it held back"
is "$(cat "$T/worker.err")" "" "the worker said nothing on stderr"

done_testing
