#!/bin/bash
# sr-mcp: a session's interpreter kept from outside (sr-mcp --session-keep):
# the idle bound whatever the code does, the work a call leaves running
# killed or the session ended, the interpreter's CPU charged to the client's
# budget, a scratch workspace with a live session kept
# (tests/mcp/session-keep.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/session-keep.mjs"
exit $?
