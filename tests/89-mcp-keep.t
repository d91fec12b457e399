#!/bin/bash
# sr-mcp: run_code with keep_workspace false removes its scratch workspace
# as the result is returned, says so, offers no dead links; refused with a
# workspace_id or a session (tests/mcp/keep.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/keep.mjs"
exit $?
