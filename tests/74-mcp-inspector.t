#!/bin/bash
# sr-mcp through a second, independent client: the MCP Inspector's CLI
# (pinned in tests/mcp), which validates structuredContent against each
# tool's outputSchema and exits 5 on an isError result.
. "$(dirname "$0")/lib.sh"
mcp_client_guard
insp=$SR_ROOT/tests/mcp/node_modules/.bin/mcp-inspector
[ -x "$insp" ] || skip_all "the MCP Inspector is not installed (cd tests/mcp && npm ci)"
# Under SAN=address no memory limit fits ASan's shadow: runs get none.
mem=()
san_asan && mem=(--memory off)
mcp() { run "$insp" --cli "$SR_ROOT/sr-mcp/sr-mcp" --state-dir "$T/state" "${mem[@]}" "$@"; }

mcp --method tools/list
is "$rc" 0 "inspector: tools/list succeeds"
for t in run_code job_status job_logs cancel_job list_jobs sandbox_info; do
	like "$out" "\"name\": \"$t\"" "inspector: tools/list lists $t"
done
mcp --method tools/call --tool-name run_code --format json \
	--tool-args-json '{"language":"python","code":"print(6*7)"}'
is "$rc" 0 "inspector: run_code succeeds, its result valid against the outputSchema"
is "$(json_get "$out" result.structuredContent.stdout)" "42" "inspector: the run's stdout"
mcp --method tools/call --tool-name run_code --format json \
	--tool-args-json '{"language":"bash","code":"echo no >&2; exit 4"}'
is "$rc" 5 "inspector: a failing run is an isError result (exit 5)"
is "$(json_get "$out" result.structuredContent.exit_code)" "4" "inspector: ... with the exit code"
done_testing
