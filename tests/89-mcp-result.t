#!/bin/bash
# sr-mcp: what a run's result says happened: a run out of memory under the
# rlimit, the files a run made as resource_links, installer errors in one
# sentence (tests/mcp/result.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_userns
node "$SR_ROOT/tests/mcp/result.mjs"
exit $?
