#!/bin/bash
# sr-mcp: what export_workspace and import_files may carry: an import is
# bounded by the workspace quota (a gzip bomb, a directory) before it is
# written; set-ID and sticky bits are dropped and fifos and devices left
# out both ways; the rebuild recipe refuses to run as root
# (tests/mcp/transfer-limits.mjs).
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_userns
command -v python3 >/dev/null || skip_all "python3 (to make the archives) is not installed"
w="$T/probe"
mkdir "$w"
run sr-jail --bind "$w" /w --quota 1M true
if [ "$rc" != 0 ]; then
	skip_all "sr-jail --quota does not work here: $err"
fi
node "$SR_ROOT/tests/mcp/transfer-limits.mjs"
exit $?
