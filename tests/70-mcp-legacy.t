#!/bin/bash
# sr-mcp through the official TypeScript SDK v1 client (2025-11-25): every
# tool, state across calls, limits, output, progress, cancellation, the
# wait_s path, EOF, SIGTERM and a restart (tests/mcp/legacy.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/legacy.mjs"
