#!/bin/bash
# sr-mcp-http, 2026-07-28 with the official v2 client: a closed response
# stream cancels its request's job; per-request sr-mcp end quietly, after
# their sweep (tests/mcp/http-stateless.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
[ "$(id -u)" != 0 ] || skip_all "runs as an ordinary user (sr-mcp-http refuses root; make check runs it as one)"
node "$SR_ROOT/tests/mcp/http-stateless.mjs"
exit $?
