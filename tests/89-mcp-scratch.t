#!/bin/bash
# sr-mcp: a workspace made by a call without a workspace_id is scratch,
# removed soon after its last use (--scratch-ttl) unless a later call names
# it; never while a job runs in it; the state survives a restart
# (tests/mcp/scratch.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/scratch.mjs"
exit $?
