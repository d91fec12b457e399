#!/bin/bash
# Escape attempts through sr-mcp's run_code (tests/mcp/escape.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/escape.mjs"
