#!/bin/bash
# sr-mcp: install_packages into a workspace with a live session
# (tests/mcp/session-packages.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/session-packages.mjs"
exit $?
