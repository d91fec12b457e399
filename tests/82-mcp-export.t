#!/bin/bash
# sr-mcp: export_workspace, import_files and the MCP resources, and every
# way out of the allowed host directories and of a workspace that a model
# or the sandboxed code could try (tests/mcp/export.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
command -v python3 >/dev/null || skip_all "python3 (to make the hostile archives) is not installed"
node "$SR_ROOT/tests/mcp/export.mjs"
