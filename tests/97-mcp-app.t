#!/bin/bash
# sr-mcp's MCP App, ui://sr/run.html (tests/app/run.mjs): offered only to
# clients that declare io.modelcontextprotocol/ui; in headless Chromium,
# inside the small host of make demo-app, it shows a run live, cancels
# one, and shows hostile output as text.
. "$(dirname "$0")/lib.sh"
need_userns
need_cmd node
node "$SR_ROOT/tests/app/run.mjs"
exit $?
