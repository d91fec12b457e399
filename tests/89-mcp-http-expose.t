#!/bin/bash
# expose_port over sr-mcp-http: a session's python3 -m http.server opened
# by curl at /p/TENANT/ID/ on the front's address, no token; a changed ID,
# another tenant's name, a malformed link refused; dead after close_session
# (tests/mcp/http-expose.mjs).
. "$(dirname "$0")/lib.sh"
mcp_http_guard curl
node "$SR_ROOT/tests/mcp/http-expose.mjs"
exit $?
