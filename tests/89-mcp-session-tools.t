#!/bin/bash
# sr-mcp: session_info, restart_session, close_session, tenants apart
# (tests/mcp/session-tools.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
rootfs_env    # for a session in an environment
node "$SR_ROOT/tests/mcp/session-tools.mjs"
exit $?
