#!/bin/bash
# sr-mcp over Streamable HTTP: sr-mcp-http driven by the official SDK's
# StreamableHTTPClientTransport (tests/mcp/http.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
[ "$(id -u)" != 0 ] || skip_all "runs as an ordinary user (sr-mcp-http refuses root; make check runs it as one)"
node "$SR_ROOT/tests/mcp/http.mjs"
exit $?
