#!/bin/bash
# sr-queue fair sharing: round-robin across tenants, and a per-tenant CPU
# budget that makes an over-budget tenant wait (not fail) while another
# tenant's jobs run. Assertions are on order and on lower bounds of time
# (what the budget guarantees), never on speed.
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

# --- CPU budget ---------------------------------------------------------------------
# a: 5 jobs of 100ms CPU under a budget of 100ms per 500ms. Whatever the
# machine's speed, a's jobs cannot all be done within
# (500ms - 100ms budget - 100ms last job) / (100ms/500ms) = 1.5s.
sp=$T/budget
a=()
for i in $(seq 1 5); do a+=("$(sr-queue submit "$sp" --tenant a -- "$T/spin" 100)"); done
sr-queue run "$sp" -j 1 --cpu-budget 100ms/500ms 2>"$T/worker.err" &
wpid=$!
at_exit "kill $wpid 2>/dev/null"
sr-queue wait "$sp" "${a[0]}" --timeout 60s >/dev/null
b=()
for i in 1 2 3; do b+=("$(sr-queue submit "$sp" --tenant b -- true)"); done
for id in "${b[@]}"; do sr-queue wait "$sp" "$id" --timeout 60s >/dev/null; done
a_done=$(sr-queue list "$sp" --state completed --json | grep -c "")
a_done=$((a_done - 3))
ok "tenant b's jobs did not wait for tenant a's backlog" \
	test "$a_done" -lt 5
for id in "${a[@]}"; do sr-queue wait "$sp" "$id" --timeout 60s >/dev/null; done
kill -TERM "$wpid"
wait "$wpid"
states=""
for id in "${a[@]}"; do states="$states $(field "$sp" "$id" state)"; done
is "$states" " completed completed completed completed completed" \
	"every over-budget job waited and then ran (none failed)"
cpu=$(( $(field "$sp" "${a[0]}" user_ms) + $(field "$sp" "${a[0]}" sys_ms) ))
ok "a job's CPU time is measured (${cpu}ms)" test "$cpu" -ge 80
span=$(( $(field "$sp" "${a[4]}" finished_ms) - $(field "$sp" "${a[0]}" started_ms) ))
ok "the budget held tenant a back (${span}ms >= 1200ms)" test "$span" -ge 1200
is "$(cat "$T/worker.err")" "" "the worker said nothing on stderr"

done_testing
