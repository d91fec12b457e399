#!/bin/bash
# sr-mcp: tests/mcp/start.mjs (see its first lines): what the official MCP
# client sees of a server that cannot start. The cases themselves are
# tests/89-mcp-start.t.
. "$(dirname "$0")/lib.sh"
need_mcp_clients
node "$SR_ROOT/tests/mcp/start.mjs"
