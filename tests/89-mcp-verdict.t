#!/bin/bash
# sr-mcp: a session call's "timed out" is the host's to say, not the
# interpreter's, which shares its process with the code
# (tests/mcp/verdict.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_userns
node "$SR_ROOT/tests/mcp/verdict.mjs"
exit $?
