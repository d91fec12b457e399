#!/bin/bash
# sr-mcp --compat sandrun (tests/mcp/compat.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/compat.mjs"
