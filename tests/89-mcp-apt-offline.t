#!/bin/bash
# install_packages' apt without Debian's archive (tests/mcp/apt-offline.mjs):
# sandbox_info's apt field and note per environment, and the refusal under
# --network none, which names the environment's mirrors and --network
# install (control: pip's refusal is pip's; with --network install the
# call gets past the policy). Skips where the test environment is missing.
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_userns
rootfs_env
if [ -n "${SR_TEST_ROOTFS-}" ] && [ ! -x "$SR_TEST_ROOTFS/usr/bin/apt-get" ]; then
	export SR_TEST_ROOTFS_WHY="the test environment has no apt-get" SR_TEST_ROOTFS=
fi
node "$SR_ROOT/tests/mcp/apt-offline.mjs"
exit $?
