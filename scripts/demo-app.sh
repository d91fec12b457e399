# scripts/demo-app.sh - `make demo-app`: sr-mcp's MCP App in a browser. A
# small host (sr-mcp/app/host.mjs, Node's standard library only) starts the
# sr-mcp of this tree over stdio and serves, on 127.0.0.1 only, a page to
# run code with the app beside it (PORT, default 8765). Started as root, it
# runs as the unprivileged account, as `make check` does (scripts/stage.sh):
# sr-mcp refuses to run as root.
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" = 0 ]; then
	. "$root/scripts/stage.sh"
	sr_stage_run "$root" "${SR_TEST_USER:-srcheck}" scripts/demo-app.sh PORT="${PORT:-8765}"
	exit $?
fi
command -v node >/dev/null || { echo "demo-app: fatal: unable to start: node is not installed" >&2; exit 111; }
PATH="$root/sr-limit:$root/sr-jail:$root/sr-exec:$root/sr-queue:$root/sr-mcp:$PATH" \
	exec node "$root/sr-mcp/app/host.mjs" --port "${PORT:-8765}" --server "$root/sr-mcp/sr-mcp"
