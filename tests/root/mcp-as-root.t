#!/bin/bash
# sr-mcp started by root fails at start with one clear line: the sandbox
# drops root to nobody, who cannot reach root's private state directory, so
# every run would only fail. It exits 111 before it reads a request, with
# nothing on stdout (a client sees the exit code and the log line, not half
# a handshake), says to run sr-mcp as an ordinary user, and makes nothing.
. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (make check started as root runs it)"
call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_code","arguments":{"language":"bash","code":"touch /workspace/ran; echo ran"}}}'
printf '%s\n' "$call" >"$T/call"
exec 3<"$T/call"
run env SR_MCP_STATE_DIR="$T/state" sr-mcp <&3
pos=$(awk '/^pos:/ { print $2 }' "/proc/$$/fdinfo/3")
exec 3<&-
is "$rc" 111 "sr-mcp as root: exit 111 at start"
is "$pos" 0 "before it read a request"
is "$out" "" "nothing on stdout"
like "$err" "^sr-mcp: fatal: refusing to run as root: .*start sr-mcp as an ordinary user" \
	"one line that says to run sr-mcp as an ordinary user"
is "$(printf '%s\n' "$err" | wc -l | tr -d ' ')" 1 "in one line"
ok "no state directory was made" test ! -e "$T/state"
is "$(find "$T" -name ran | wc -l | tr -d ' ')" 0 "and no file was made by the code"
run sr-mcp --help
is "$rc" 0 "sr-mcp --help as root still answers"
run sr-mcp -j 0
is "$rc" 100 "a usage error as root is still a usage error (100)"
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
