#!/bin/bash
# sr-mcp-http, 2026-07-28 with the official v2 client: a closed response
# stream cancels its request's job; per-request sr-mcp end quietly, after
# their sweep (tests/mcp/http-stateless.mjs).
. "$(dirname "$0")/lib.sh"
mcp_http_guard
node "$SR_ROOT/tests/mcp/http-stateless.mjs"
exit $?
