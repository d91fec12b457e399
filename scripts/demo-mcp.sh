# scripts/demo-mcp.sh - `make demo-mcp`: the README's MCP session
# (scripts/mcp-session.py) with the sr-mcp of this tree. Started as root, it
# runs as the unprivileged account, as `make check` does (scripts/stage.sh):
# the sandbox is for ordinary users, and sr-mcp refuses to run as root.
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" = 0 ]; then
	. "$root/scripts/stage.sh"
	sr_stage_run "$root" "${SR_TEST_USER:-srcheck}" scripts/demo-mcp.sh
	exit $?
fi
PATH="$root/sr-limit:$root/sr-jail:$root/sr-exec:$root/sr-queue:$root/sr-mcp:$PATH" \
	exec python3 "$root/scripts/mcp-session.py"
