#!/bin/bash
# sr-mcp: workspace quota (sr-jail --quota through the runners) and
# retention of idle workspaces (tests/mcp/quota.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_userns
w="$T/probe"
mkdir "$w"
run sr-jail --bind "$w" /w --quota 1M true
if [ "$rc" != 0 ]; then
	skip_all "sr-jail --quota does not work here: $err"
fi
node "$SR_ROOT/tests/mcp/quota.mjs"
exit $?
