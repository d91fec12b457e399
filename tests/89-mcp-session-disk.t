#!/bin/bash
# sr-mcp: a session's disk bounded by the workspace's quota by the kernel
# (the quota's tmpfs), every way to allocate tried, each with its control;
# the workspace's files there when a call returns; the host's writes
# through the session's view (tests/mcp/session-disk.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_userns
node "$SR_ROOT/tests/mcp/session-disk.mjs"
exit $?
