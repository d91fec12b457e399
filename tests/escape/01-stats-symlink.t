#!/bin/bash
# Escape 1: sr-limit writes its report outside the jail, with the user's
# rights, often into a directory the payload can write (a bound workspace).
# Nothing the payload plants there may make that write land elsewhere.
. "$(dirname "$0")/../lib.sh"

need_userns

victim=$T/victim
mkdir -p "$T/ws/out" "$T/keys"
printf 'precious\n' > "$victim"
printf 'ssh-key\n' > "$T/keys/id"
report=$T/ws/out/report.json
chain() { sr-limit --pids 64 --timeout 20s --stats "$report" \
	sr-jail --bind "$T/ws" /workspace sr-exec "$@"; }

# Control: a link planted at the report's name leads a plain write to the
# victim.
ln -s "$victim" "$T/ws/out/control"
echo overwritten > "$T/ws/out/control"
is "$(cat "$victim")" "overwritten" "control: a write through the planted link reaches the victim"
printf 'precious\n' > "$victim"

# The payload replaces the report's name with a link to the victim.
run chain sh -c "ln -sf '$victim' /workspace/out/report.json"
is "$rc" 0 "the payload planted a link at the report's name"
is "$(cat "$victim")" "precious" "the victim keeps its bytes"
nok "the link was replaced, not written through" test -L "$report"
is "$(json_get "$report" reason)" "exit" "the report is where it was asked for"

# Links at the names a predictable temporary file would have had
# (REPORT.tmp.PID), for the pids that come next on this host: a payload
# can plant a wide range; the test knows where to look. (One process plants
# them all: 400 runs of ln take longer than the chain's 20 s on an emulated
# CPU, make check-vm's TCG.)
base=$(sh -c 'echo $$')
run chain python3 -c 'import os, sys
for i in range(int(sys.argv[1]), int(sys.argv[1]) + 401):
    os.symlink(sys.argv[2], "/workspace/out/report.json.tmp.%d" % i)' "$base" "$victim"
is "$(cat "$victim")" "precious" "links at guessable temporary names are not followed"
is "$(json_get "$report" reason)" "exit" "... and the report is written"
rm -f "$T"/ws/out/report.json.tmp.*

# A fifo at the report's name: replaced, no hang.
run chain sh -c 'rm -f /workspace/out/report.json; mkfifo /workspace/out/report.json'
is "$rc" 0 "a fifo planted at the report's name does not hang sr-limit"
ok "the fifo was replaced by the report" test -f "$report"

# The payload replaces the report's directory with a link to the user's
# keys: sr-limit refuses to follow it.
run chain sh -c "mv /workspace/out /workspace/out.moved && ln -s '$T/keys' /workspace/out"
like "$err" "unable to write stats to .*report.json: (Too many levels of symbolic links|Not a directory)" \
	"a link planted as the report's directory is refused, and said"
is "$(ls "$T/keys")" "id" "nothing is written into the directory the link names"
is "$(cat "$T/keys/id")" "ssh-key" "the key keeps its bytes"
is "$rc" 0 "the run's own exit status is kept"

done_testing
