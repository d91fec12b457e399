#!/bin/bash
# sr-mcp started by root fails closed with one clear line: the sandbox
# drops root to nobody, who cannot reach root's private state directory, so
# a run would only fail; the tool result says to run sr-mcp as an ordinary
# user, and nothing runs.
. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (make check started as root runs it)"
call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_code","arguments":{"language":"bash","code":"touch /workspace/ran; echo ran"}}}'
run mcp_call "$call" env SR_MCP_STATE_DIR="$T/state" sr-mcp
is "$(json_get "$out" result.isError)" true "run_code under root: an isError result"
like "$(json_get "$out" result.content.0.text)" "running as root.*ordinary user" "which says to run sr-mcp as an ordinary user"
nok "nothing was run (no job in a spool)" sh -c "ls '$T'/state/spool/*/* 2>/dev/null | grep -q ."
is "$(find "$T" -name ran | wc -l | tr -d ' ')" 0 "and no file was made by the code"
# control: the same call as an ordinary user runs the code
if id srcheck >/dev/null 2>&1; then
	mkdir -p "$T/u" && chown srcheck "$T/u" && chmod 0755 "$T"
	out=$(runuser -u srcheck -- env PATH="$PATH" HOME="$T/u" bash -c \
		". '$SR_ROOT/tests/lib.sh'; mcp_call '$call' env \${mcp_san[@]+\"\${mcp_san[@]}\"} SR_MCP_STATE_DIR='$T/u/state' sr-mcp")
	is "$(json_get "$out" result.structuredContent.stdout)" "ran" "control: as an ordinary user the same call runs"
else
	skip "control as an ordinary user" "no account srcheck"
fi
done_testing
