#!/bin/bash
# sr-mcp: every call's arguments checked against its tool's inputSchema
# (tests/mcp/arguments.mjs, see its first lines).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/arguments.mjs"
exit $?
