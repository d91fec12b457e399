#!/bin/bash
# sr-mcp: JavaScript sessions (tests/mcp/session-node.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/session-node.mjs"
exit $?
