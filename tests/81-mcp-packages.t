#!/bin/bash
# sr-mcp: install_packages under each network policy, pip from wheels the
# test builds, npm from the registry (tests/mcp/packages.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/packages.mjs"
