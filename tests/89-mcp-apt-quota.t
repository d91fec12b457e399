#!/bin/bash
# The workspace quota of a run whose workspace has a layer (where
# install_packages' apt puts its packages) is the quota less the layer's
# size (tests/mcp/apt-quota.mjs). Skips where the test environment or
# the quota is missing.
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_userns
need_quota
rootfs_env
exec node "$SR_ROOT/tests/mcp/apt-quota.mjs"
