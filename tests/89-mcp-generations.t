#!/bin/bash
# sr-mcp: what each protocol generation serves (tests/mcp/generations.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/generations.mjs"
