#!/bin/bash
# sr-mcp-http: a tenant's own network policy from its line in the tokens
# file, passed to that tenant's sr-mcp alone (tests/mcp/http-tenant-net.mjs).
. "$(dirname "$0")/lib.sh"
mcp_http_guard
node "$SR_ROOT/tests/mcp/http-tenant-net.mjs"
exit $?
