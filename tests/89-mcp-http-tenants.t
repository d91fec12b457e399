#!/bin/bash
# sr-mcp-http: two tenants at once; neither reaches the other's workspaces,
# jobs, tasks or resources through any tool or request that takes an id
# (tests/mcp/http-tenants.mjs).
. "$(dirname "$0")/lib.sh"
mcp_http_guard
node "$SR_ROOT/tests/mcp/http-tenants.mjs"
exit $?
