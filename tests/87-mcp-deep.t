#!/bin/bash
# sr-mcp: trees deeper than a stack or a descriptor table, unreadable
# directories among them, and results that would pass the result cap
# (tests/mcp/deep.mjs). A small RLIMIT_NOFILE shows the walks hold a
# bounded number of descriptors.
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_userns
ulimit -n 256
node "$SR_ROOT/tests/mcp/deep.mjs"
exit $?
