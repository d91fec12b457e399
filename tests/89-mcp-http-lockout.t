#!/bin/bash
# sr-mcp-http: a client that never ends its sessions is not locked out
# (the tenant's session idle longest makes room), a tenant whose sessions
# are all busy gets 429 with a Retry-After that holds, and the server's
# bound a 503 with when a session ends (tests/mcp/http-lockout.mjs).
. "$(dirname "$0")/lib.sh"
mcp_http_guard
node "$SR_ROOT/tests/mcp/http-lockout.mjs"
exit $?
