#!/bin/bash
# sr-mcp: verdicts the code could forge: a session call's "timed out"
# (the interpreter shares its process with the code) and "the sandbox could
# not run the code" (a chain tool's fatal line printed)
# (tests/mcp/verdict.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_userns
node "$SR_ROOT/tests/mcp/verdict.mjs"
exit $?
