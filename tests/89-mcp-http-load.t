#!/bin/bash
# sr-mcp-http under a bounded load (tests/mcp/http-load.mjs): 20 sessions
# calling run_code for 15 s by default; SR_HTTP_LOAD_SESSIONS and
# SR_HTTP_LOAD_SECONDS change that (make bench runs 20 sessions for 60 s).
. "$(dirname "$0")/lib.sh"
mcp_http_guard
node "$SR_ROOT/tests/mcp/http-load.mjs"
exit $?
