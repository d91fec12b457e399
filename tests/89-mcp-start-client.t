#!/bin/bash
# sr-mcp: tests/mcp/start.mjs (see its first lines): what the official MCP
# client sees of a server that cannot start. The cases themselves are
# tests/89-mcp-start.t.
. "$(dirname "$0")/lib.sh"
command -v node >/dev/null || skip_all "node is not installed"
[ -d "$SR_ROOT/tests/mcp/node_modules/@modelcontextprotocol/sdk" ] ||
	skip_all "the MCP clients are not installed (cd tests/mcp && npm ci)"
node "$SR_ROOT/tests/mcp/start.mjs"
