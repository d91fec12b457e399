#!/bin/bash
# sr-mcp: the typescript runner (tests/mcp/typescript.mjs): type errors at
# their lines, ES modules, the workspace's modules, the chain.
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_userns
[ -f /usr/share/nodejs/typescript/lib/typescript.js ] ||
	skip_all "no TypeScript compiler here (Debian's node-typescript; make deps-check installs it)"
node "$SR_ROOT/tests/mcp/typescript.mjs"
exit $?
