#!/bin/bash
# install_packages' apt without Debian's archive (tests/mcp/apt-offline.mjs):
# sandbox_info's apt field and note per environment, and the refusal under
# --network none, which names the environment's mirrors and --network
# install (control: pip's refusal is pip's; with --network install the
# call gets past the policy). Skips where the test environment or its
# apt-get is missing.
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_userns
rootfs_env
exec node "$SR_ROOT/tests/mcp/apt-offline.mjs"
