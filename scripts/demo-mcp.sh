# scripts/demo-mcp.sh - `make demo-mcp`: the MCP session of docs/mcp.md
# (scripts/mcp-session.py) with the sr-mcp of this tree. Started as root, it
# runs as the unprivileged account, as `make check` does (scripts/stage.sh):
# the sandbox is for ordinary users, and sr-mcp refuses to run as root.
root=$(cd "$(dirname "$0")/.." && pwd)
# The session summarises a CSV with pandas and plots it with matplotlib:
# sr-mcp's default environment (make install-env), installed first (as
# root or with sudo) as make check does; a user who may not install is
# told in one line what to ask for.
if [ -z "${SR_DEMO_STAGED:-}" ]; then
	if ! env=$(sh "$root/scripts/deps.sh" env 2>&1); then
		echo "demo-mcp: fatal: the session needs sr-mcp's default environment (pandas, matplotlib): $(printf '%s\n' "$env" | tail -1 | sed 's/^sr: //') (or make install-env)" >&2
		exit 111
	fi
	[ -z "$env" ] || printf '%s\n' "$env"
fi
if [ "$(id -u)" = 0 ]; then
	. "$root/scripts/stage.sh"
	sr_stage_run "$root" "${SR_TEST_USER:-srcheck}" scripts/demo-mcp.sh SR_DEMO_STAGED=1
	exit $?
fi
PATH="$root/sr-limit:$root/sr-jail:$root/sr-exec:$root/sr-queue:$root/sr-mcp:$PATH" \
	exec python3 "$root/scripts/mcp-session.py"
