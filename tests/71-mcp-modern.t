#!/bin/bash
# sr-mcp: tests/mcp/modern.mjs (see its first lines).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/modern.mjs"
