#!/bin/bash
# sr-limit: exit paths, usage errors, stats output and signal forwarding.
. "$(dirname "$0")/lib.sh"

# Exit codes pass through.
run sr-limit true;                     is "$rc" 0 "true exits 0"
run sr-limit sh -c 'exit 3';           is "$rc" 3 "exit code 3 passes through"
run sr-limit sh -c 'kill -9 $$';       is "$rc" 137 "death by SIGKILL gives 128+9"
run sr-limit -- sh -c 'exit 5';        is "$rc" 5 "-- ends the options"
run sr-limit no-such-program-xyz;      is "$rc" 127 "missing program gives 127"
like "$err" "sr-limit: .*no-such-program-xyz.*No such file" "missing program is named"
printf 'echo hi\n' > "$T/noexec"; chmod 0644 "$T/noexec"
run sr-limit "$T/noexec";              is "$rc" 126 "non-executable program gives 126"
# A script without #! runs with /bin/sh, as execvp(3) and env(1) run it,
# found by path or on PATH, with its arguments.
printf 'echo "no-shebang $# $1"\n' > "$T/plain"; chmod 0755 "$T/plain"
run sr-limit "$T/plain" one two;      is "$rc:$out" "0:no-shebang 2 one" "a script without #! runs with sh"
run env PATH="/nonexistent:$T:$PATH" "$SR_ROOT/sr-limit/sr-limit" plain x
is "$rc:$out" "0:no-shebang 1 x" "... found on PATH too"
mkdir -p "$T/eacces"; printf 'echo hi\n' > "$T/eacces/plain"; chmod 0644 "$T/eacces/plain"
run env PATH="$T/eacces:$T:$PATH" "$SR_ROOT/sr-limit/sr-limit" plain
is "$rc:$out" "0:no-shebang 0 " "a PATH entry that may not be run is passed over"
run sr-limit sh -c 'echo "$1-$2"' x a -b; is "$out" "a--b" "the child's own options are not eaten"

# Usage errors: 100 and a message naming the bad value.
for bad in "--mem 12X" "--mem -1" "--mem 1e99" "--mem ''" "--mem 99999999999999999999T" \
	   "--cpu 2x" "--timeout 1e3" "--timeout -5s" "--pids 1.5" "--nofile abc" \
	   "--fsize 1MM" "--stack 0x10" "--core 5Q" "--kill-after ms" "--cgroup maybe" \
	   "--stats-fd 999" "--cpus 0" "--cpus 2s" "--bogus"; do
	eval "run sr-limit $bad true"
	is "$rc" 100 "usage error: sr-limit $bad"
	val=${bad#* }; val=${val//\'/}
	case $bad in --bogus) val=bogus ;; esac
	like "$err" "^sr-limit: usage: .*${val//./\\.}" "message names the bad value: $bad"
done
run sr-limit;                          is "$rc" 100 "no program is a usage error"
run sr-limit --help;                   is "$rc" 0 "--help exits 0"
like "$out" "--timeout" "--help lists the options"

# Stats: one line of JSON, to a file (atomically replaced) or an fd.
run sr-limit --stats "$T/s.json" sh -c 'exit 7'
is "$rc" 7 "stats run keeps the exit code"
is "$(wc -l < "$T/s.json")" 1 "stats file holds one line"
is "$(json_get "$T/s.json" reason)" exit "reason exit"
is "$(json_get "$T/s.json" exit_code)" 7 "exit_code 7"
is "$(json_get "$T/s.json" signal)" null "no signal"
like "$(json_get "$T/s.json" wall_ms)" '^[0-9.]+$' "wall_ms is a number"
like "$(json_get "$T/s.json" user_ms)" '^[0-9.]+$' "user_ms is a number"
like "$(json_get "$T/s.json" sys_ms)" '^[0-9.]+$' "sys_ms is a number"
like "$(json_get "$T/s.json" peak_memory_bytes)" '^[1-9][0-9]+$' "peak memory measured"
is "$(json_get "$T/s.json" limits.core.bytes)" 0 "core dumps off by default"

run sr-limit --stats-fd 3 sh -c 'kill -TERM $$' 3>"$T/fd.json"
is "$rc" 143 "SIGTERM death gives 143"
is "$(json_get "$T/fd.json" reason)" signal "reason signal"
is "$(json_get "$T/fd.json" signal)" 15 "signal number reported"
is "$(json_get "$T/fd.json" signal_name)" TERM "signal name reported"

run sr-limit --stats-fd 3 no-such-program-xyz 3>"$T/err.json"
is "$(json_get "$T/err.json" reason)" error "a program that cannot start: reason error"
is "$(json_get "$T/err.json" status)" 127 "stats status 127"

# The stats fd does not leak into the child; SR_STATS_FD is handed on.
run sr-limit --stats-fd 3 sh -c 'echo x >&3' 3>"$T/leak.json"
is "$rc" 2 "the child cannot write to the stats fd"
is "$(json_get "$T/leak.json" exit_code)" 2 "stats fd still got the report"
SR_STATS_FD=4 run sr-limit sh -c 'echo "${SR_STATS_FD-unset}"' 4>"$T/env.json"
is "$out" unset "SR_STATS_FD is not passed to the child"
is "$(json_get "$T/env.json" reason)" exit "SR_STATS_FD receives the report"
SR_STATS_FD=4 run sr-limit sr-limit --stats-fd 5 true 4>"$T/outer.json" 5>"$T/inner.json"
is "$(json_get "$T/outer.json" reason)" exit "outermost sr-limit reports to SR_STATS_FD"
is "$(json_get "$T/inner.json" reason)" exit "inner sr-limit reports to its own fd"
SR_STATS_FD=77 run sr-limit true
like "$err" "ignoring SR_STATS_FD=77" "a closed SR_STATS_FD is reported, not fatal"
is "$rc" 0 "and the run goes on"

# Signals to sr-limit reach the child's process group. The child says it
# is ready (its trap is set) by creating a file; only then is it signalled.
sr-limit --stats "$T/fwd.json" sh -c 'trap "exit 42" TERM; : > "$1"; sleep 30 & wait' sh "$T/fwd.ready" &
lp=$!
wait_for "the child's TERM trap" 10 test -e "$T/fwd.ready"
kill -TERM "$lp"
wait "$lp"; is "$?" 42 "SIGTERM forwarded to the child (its trap ran)"
is "$(json_get "$T/fwd.json" exit_code)" 42 "stats record the child's exit"

for s in INT HUP; do
	# (python: a shell may not trap a signal its parent ignored)
	sr-limit python3 -c "import signal, sys, time
signal.signal(signal.SIG$s, lambda *a: sys.exit(9))
open(sys.argv[1], 'w').close()
time.sleep(30)" "$T/$s.ready" &
	lp=$!
	wait_for "the child's SIG$s handler" 10 test -e "$T/$s.ready"
	kill -"$s" "$lp"
	wait "$lp"; is "$?" 9 "SIG$s forwarded to the child"
done

done_testing
