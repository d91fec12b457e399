#!/bin/bash
# sr-mcp: the typescript runner (tests/mcp/typescript.mjs): type errors at
# their lines, ES modules, the workspace's modules, the chain.
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_userns
[ -f /usr/share/nodejs/typescript/lib/typescript.js ] ||
	skip_all "no TypeScript compiler here (Debian's node-typescript; make deps-check installs it)"
[ -f /usr/lib/node_modules/@types/node/index.d.ts ] || [ -f /usr/local/lib/node_modules/@types/node/index.d.ts ] ||
	skip_all "no Node.js types here (@types/node: make install-env, scripts/node-types.sh, installs it)"
node "$SR_ROOT/tests/mcp/typescript.mjs"
exit $?
