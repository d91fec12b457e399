#!/bin/bash
# sr-mcp: workspace quota (sr-jail --quota through the runners) and
# retention of idle workspaces (tests/mcp/quota.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_quota
node "$SR_ROOT/tests/mcp/quota.mjs"
exit $?
