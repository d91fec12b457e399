#!/bin/bash
# sr-mcp: finished jobs and their code are removed by the retention
# (--job-ttl, --job-space), and a removed job says so (tests/mcp/retention.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/retention.mjs"
exit $?
