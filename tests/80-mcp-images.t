#!/bin/bash
# sr-mcp: images a run writes to /workspace/outputs (and matplotlib figures
# left open) come back as image blocks, within the clients' caps, and
# nothing planted there is followed (tests/mcp/images.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
node "$SR_ROOT/tests/mcp/images.mjs"
