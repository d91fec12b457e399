#!/bin/bash
# install_packages' apt held up by another install into the same
# workspace's packages is refused within its own timeout_s, failure busy
# (tests/mcp/apt-busy.mjs; the control goes on to apt, which needs no
# reachable archive to fail on a name no archive has). Skips where the
# test environment, its apt-get or flock(1) is missing.
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_userns
command -v flock >/dev/null || skip_all "no flock(1) here (util-linux)"
rootfs_env
exec node "$SR_ROOT/tests/mcp/apt-busy.mjs"
