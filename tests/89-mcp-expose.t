#!/bin/bash
# sr-mcp: expose_port, a session's server opened to the host over stdio,
# and nothing else of the sandbox (tests/mcp/expose.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/expose.mjs"
exit $?
