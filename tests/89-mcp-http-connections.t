#!/bin/bash
# sr-mcp-http: connections cannot lock tenants out (tests/mcp/http-connections.mjs):
# past --address-connections a 503 that says why, while another address is
# served; idle, slowloris, trickling, idle keep-alive and half-closed
# connections are closed. Control: with one overall bound only, the same
# flood locks a tenant out.
. "$(dirname "$0")/lib.sh"
mcp_http_guard
node "$SR_ROOT/tests/mcp/http-connections.mjs"
exit $?
