#!/bin/bash
# sr-mcp-http: two tenants at once; neither reaches the other's workspaces,
# jobs, tasks or resources through any tool or request that takes an id
# (tests/mcp/http-tenants.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
[ "$(id -u)" != 0 ] || skip_all "runs as an ordinary user (sr-mcp-http refuses root; make check runs it as one)"
node "$SR_ROOT/tests/mcp/http-tenants.mjs"
exit $?
