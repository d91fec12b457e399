#!/bin/bash
# sr-mcp-http: what one tenant can make the front hold is bounded, and an
# answered request keeps nothing (tests/mcp/http-memory.mjs): large batches
# with progress tokens, long and odd ids, deep nesting, many unanswered
# requests (429 with their ids), clients that never read (python3 sockets
# with a small receive buffer), a client gone while its request runs.
. "$(dirname "$0")/lib.sh"
mcp_client_guard
command -v python3 >/dev/null || skip_all "python3 is not installed (the slow readers are python3 sockets)"
need_not_root
node "$SR_ROOT/tests/mcp/http-memory.mjs"
exit $?
