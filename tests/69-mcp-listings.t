#!/bin/bash
# sr-mcp: list_files and resources/list leave the package and internal
# directories out unless asked, naming each with the entries it holds
# (tests/mcp/listings.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/listings.mjs"
exit $?
