#!/bin/bash
# sr-mcp's MCP App shows a session's published server (tests/app/expose.mjs):
# in headless Chromium inside the demo host, a session call serves port
# 8000, the view's button gives the expose_port link, the host opens it
# and the page is there; after close_session the link is dead.
. "$(dirname "$0")/lib.sh"
need_userns
need_cmd node
node "$SR_ROOT/tests/app/expose.mjs"
exit $?
