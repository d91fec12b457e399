#!/bin/bash
# sr-limit: one rule for 0 across its limits, and --stats checked before
# the program runs.
#
# The rule (sr-limit(1), "A limit of 0"): 0 is never "no limit". Where no
# program could start under a limit of 0 (memory, address space, stack,
# CPU time, open files, the wall clock, CPU bandwidth) 0 is a usage error;
# where a program can do without the thing (processes, file size, core
# dumps) 0 is taken as it is.
. "$(dirname "$0")/lib.sh"

ran=$T/ran
for bad in "--mem 0" "--mem 0K" "--data 0" "--as 0" "--cpu 0" "--cpu 0ms" \
	   "--stack 0" "--nofile 0" "--timeout 0" "--timeout 0s" "-t 0" "--cpus 0"; do
	rm -f "$ran"
	eval "run sr-limit $bad sh -c ': > \"\$1\"' sh \"\$ran\""
	opt=${bad%% *}; val=${bad#* }
	case $opt in -t) opt=--timeout ;; esac
	is "$rc" 100 "sr-limit $bad: a usage error"
	like "$err" "^sr-limit: usage: $opt: invalid [a-zA-Z ]+: '$val' \\(want [^)]+\\)$" \
		"sr-limit $bad: the one wording for a bad value, one line"
	ok "sr-limit $bad: the program did not run" test ! -e "$ran"
done
run sr-limit --timeout 0 true
like "$err" "for no limit, leave the option out" "--timeout 0 says how to have no limit"

# Control: the limits a program can do without take 0 as it is, and mean it.
run sr-limit --pids 0 sh -c '/bin/true; echo "after $?"'
like "$rc:$out:$err" "^[1-9][0-9]*::.*([Ff]ork|Resource temporarily unavailable)" \
	"--pids 0: the program runs, and may start no process"
run sr-limit --fsize 0 sh -c 'printf x > "$1"' sh "$T/f0"
is "$rc:$(stat -c %s "$T/f0" 2>/dev/null)" "153:0" "--fsize 0: the program runs, and writes no byte (SIGXFSZ)"
run sr-limit --core 0 --kill-after 0 true
is "$rc" 0 "--core 0 (the default) and --kill-after 0 (no grace) are accepted"
run sr-limit --timeout 1ms --kill-after 0 sleep 5
is "$rc" 124 "... and a small timeout is a timeout"

# --stats FILE that cannot be written: said before the program runs.
rm -f "$ran"
run sr-limit --stats "$T/no/such/dir/s.json" sh -c ': > "$1"' sh "$ran"
is "$rc:$err" "111:sr-limit: fatal: unable to open the directory of --stats $T/no/such/dir/s.json: No such file or directory" \
	"--stats into a missing directory: 111, before the run"
ok "... and the program did not run" test ! -e "$ran"
mkdir "$T/ro"; chmod 0555 "$T/ro"
if [ -w "$T/ro" ]; then
	skip "--stats into a directory not ours to write" "running with CAP_DAC_OVERRIDE"
else
	run sr-limit --stats "$T/ro/s.json" sh -c ': > "$1"' sh "$ran"
	is "$rc:$err" "111:sr-limit: fatal: unable to write --stats $T/ro/s.json: Permission denied" \
		"--stats into a directory not ours to write: 111, before the run"
	ok "... and the program did not run" test ! -e "$ran"
fi
run sr-limit --stats "$T" sh -c ': > "$1"' sh "$ran"
is "$rc:$err" "111:sr-limit: fatal: unable to write --stats $T: Is a directory" \
	"--stats naming a directory: 111, before the run"
run sr-limit --stats "$T/" sh -c ': > "$1"' sh "$ran"
is "$rc:$err" "100:sr-limit: usage: --stats: invalid file: '$T/' (want a file name, not a directory)" \
	"--stats DIR/: a usage error"
ok "... and the program did not run" test ! -e "$ran"
# Control: a --stats file that can be written is, and the program runs.
run sr-limit --stats "$T/ok.json" sh -c ': > "$1"' sh "$ran"
is "$rc:$(json_get "$T/ok.json" reason)" "0:exit" "--stats into a directory that is there: the report"
ok "... and the program ran" test -e "$ran"

done_testing
