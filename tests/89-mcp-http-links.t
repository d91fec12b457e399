#!/bin/bash
# sr-mcp-http's download links: curl downloads a made file by its signed
# URL, no token; altered, expired, another tenant's, '..', a link on the
# path and a directory are refused, each beside a control
# (tests/mcp/http-links.mjs).
. "$(dirname "$0")/lib.sh"
mcp_http_guard curl
node "$SR_ROOT/tests/mcp/http-links.mjs"
exit $?
