#!/bin/bash
# The workspace quota of a run whose workspace has a layer (where
# install_packages' apt puts its packages) is the quota less the layer's
# size (tests/mcp/apt-quota.mjs), read from the layer's size record
# (STATE/ws-layer/WS.size; a record moved moves the quota), measured again
# when the record is missing or unreadable, no room when the layer cannot
# be measured whole; a session's quota likewise. Skips where the test
# environment or the quota is missing.
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_userns
need_quota
rootfs_env
exec node "$SR_ROOT/tests/mcp/apt-quota.mjs"
