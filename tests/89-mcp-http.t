#!/bin/bash
# sr-mcp over Streamable HTTP: sr-mcp-http driven by the official SDK's
# StreamableHTTPClientTransport (tests/mcp/http.mjs).
. "$(dirname "$0")/lib.sh"
mcp_http_guard
node "$SR_ROOT/tests/mcp/http.mjs"
exit $?
