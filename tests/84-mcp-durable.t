#!/bin/bash
# sr-mcp: a run's job is durable before anyone can be told of it, and so
# are the files it reads. The code and the caller's variables live outside
# the spool (STATE/code/); they must be fsynced before the job is renamed
# into queue/, or a job that survives a power cut runs empty code. Watched
# with strace -y, which names each descriptor's file.
. "$(dirname "$0")/lib.sh"
need_userns
command -v strace >/dev/null || skip_all "strace is not installed"
# LeakSanitizer (make check SAN=address) cannot run under ptrace.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
state="$T/state"
log="$T/trace"
env "${mcp_san[@]}" python3 - "$log" "$state" <<'PY' > "$T/answer"
import json, subprocess, sys
log, state = sys.argv[1], sys.argv[2]
p = subprocess.Popen(["strace", "-f", "-y", "-qq", "-o", log, "-e", "trace=fsync,renameat,renameat2",
                      "sr-mcp", "--state-dir", state], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def ask(i, m, params):
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": m, "params": params}) + "\n")
    p.stdin.flush()
    return json.loads(p.stdout.readline())
ask(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})
r = ask(2, "tools/call", {"name": "run_code", "arguments": {"language": "bash", "code": "echo durable",
                                                             "env": {"K": "v"}}})
print(r["result"]["structuredContent"]["stdout"], end="")
p.stdin.close()
p.wait()
PY
is "$(cat "$T/answer")" durable "the run ran"
# The order of the calls that matter, as one letter each: c the code
# file's fsync, e the variables', j job.jsonl's, q the rename into queue/.
order=$(awk '
	/fsync\(.*\/code\/[0-9a-f]+\.code>/ { printf "c" }
	/fsync\(.*\/code\/[0-9a-f]+\.env>/ { printf "e" }
	/fsync\(.*\/job\.jsonl>/ { printf "j" }
	/renameat2?\(.*\/spool\/tmp>.*\/spool\/queue>/ { printf "q" }' "$log")
first=${order%%q*}
like "$order" "q" "the job was queued ($order)"
like "$first" "c" "the code file is fsynced before the job is queued ($order)"
like "$first" "e" "the variables' file too"
like "$first" "j" "control: job.jsonl is fsynced before the job is queued"
done_testing
