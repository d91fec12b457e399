#!/bin/bash
# sr-mcp: fair sharing that costs a lone client nothing (the CPU budget
# holds a client back only while another's runs wait), clients of one name
# told apart, the wait and its reason in the result, the policy in
# sandbox_info, and a changed -j in force at the next start
# (tests/mcp/fair.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/fair.mjs"
exit $?
