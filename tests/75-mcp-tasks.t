#!/bin/bash
# sr-mcp: MCP tasks, both flavours (tests/mcp/tasks.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/tasks.mjs"
