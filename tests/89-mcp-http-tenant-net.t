#!/bin/bash
# sr-mcp-http: a tenant's own network policy from its line in the tokens
# file, passed to that tenant's sr-mcp alone (tests/mcp/http-tenant-net.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
[ "$(id -u)" != 0 ] || skip_all "runs as an ordinary user (sr-mcp-http refuses root; make check runs it as one)"
node "$SR_ROOT/tests/mcp/http-tenant-net.mjs"
exit $?
