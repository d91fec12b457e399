#!/bin/bash
# sr-mcp: sessions, a live interpreter per workspace (tests/mcp/session.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/session.mjs"
exit $?
