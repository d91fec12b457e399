#!/bin/bash
# sr-mcp-http's download links: curl downloads a made file by its signed
# URL, no token; altered, expired, another tenant's, '..', a link on the
# path and a directory are refused, each beside a control
# (tests/mcp/http-links.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
[ "$(id -u)" != 0 ] || skip_all "runs as an ordinary user (sr-mcp-http refuses root; make check runs it as one)"
command -v curl >/dev/null || skip_all "curl is not installed"
node "$SR_ROOT/tests/mcp/http-links.mjs"
exit $?
