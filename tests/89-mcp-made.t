#!/bin/bash
# sr-mcp: the files a run made in a workspace of 20,000 files, from the
# jail's list of what it applied (sr-jail --quota-changes): created,
# changed, removed, renamed, in new directories; not forged by the run's
# code; and no walk of the workspace on the run path (tests/mcp/made.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_quota "the list comes from its apply"
node "$SR_ROOT/tests/mcp/made.mjs"
exit $?
