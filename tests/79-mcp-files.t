#!/bin/bash
# sr-mcp: the workspace file tools, and every way out of a workspace that
# the sandboxed code could plant (tests/mcp/files.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/files.mjs"
