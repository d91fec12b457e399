#!/bin/bash
# A workspace's layer (STATE/ws-layer/WS) over an environment's root:
# its runs in that environment get sr-jail --rootfs-layer, other
# workspaces' do not, deleting the workspace deletes it
# (tests/mcp/layer.mjs). install_packages' apt is to fill the layer.
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_userns
rootfs_env
node "$SR_ROOT/tests/mcp/layer.mjs"
exit $?
