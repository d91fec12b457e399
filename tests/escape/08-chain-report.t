#!/bin/bash
# Through the whole chain a limit's kill is reported as what it was: the
# program's death by a signal reaches sr-limit, because sr-jail dies of
# the same signal (it used to exit 128+N, and the report then said "exit":
# a spinner killed by SIGXCPU under --cpu was not reported as cpu).
. "$(dirname "$0")/../lib.sh"

need_userns
stats() { json_get "$T/s.json" "$1"; }

run sr-limit --pids 64 --timeout 20s --cpu 1s --stats "$T/s.json" python3 -c 'while True: pass'
is "$rc:$(stats reason)" "152:cpu" "control: without sr-jail, a spinner under --cpu 1s is reported with reason cpu"
run sr-limit --pids 64 --timeout 20s --cpu 1s --stats "$T/s.json" sr-jail sr-exec python3 -c 'while True: pass'
is "$rc" 152 "through the chain it dies of SIGXCPU too (152)"
is "$(stats reason)" cpu "through the chain the report gives reason cpu"

sr-limit --pids 64 --timeout 20s --fsize 1M --stats "$T/s.json" head -c 4M /dev/zero > "$T/out"
is "$?:$(stats signal_name)" "153:XFSZ" "control: without sr-jail, a flood under --fsize 1M is reported as SIGXFSZ"
sr-limit --pids 64 --timeout 20s --fsize 1M --stats "$T/s.json" sr-jail sr-exec head -c 4M /dev/zero > "$T/out"
is "$?" 153 "through the chain the flood is stopped too (153)"
is "$(stats signal_name):$(stats reason)" "XFSZ:signal" "through the chain the report names SIGXFSZ"
done_testing
