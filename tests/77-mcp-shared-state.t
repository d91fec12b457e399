#!/bin/bash
# sr-mcp: two servers on one state directory at once (tests/mcp/shared.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/shared.mjs"
