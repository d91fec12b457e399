#!/bin/bash
# install_packages with manager apt (tests/mcp/apt.mjs), through a real
# MCP client: a Debian package from Debian's archive into workspace A's
# layer over the test environment (.cache/rootfs): A's later runs use it
# and dpkg -s knows it, B's runs and the default environment's do not;
# the host environment, bad names, a package the archive lacks and an
# install over the workspace quota are refused, each saying why; two
# installs into one workspace at once leave both packages and dpkg's
# status whole (control, by hand: with no lock, they do not); the
# install reached the environment's mirrors only; deleting A deletes its
# layer. Skips where the environment or the archive is missing.
. "$(dirname "$0")/lib.sh"
mcp_client_guard
need_userns
rootfs_env
if [ -n "${SR_TEST_ROOTFS-}" ] && [ ! -x "$SR_TEST_ROOTFS/usr/bin/apt-get" ]; then
	export SR_TEST_ROOTFS_WHY="the test environment has no apt-get" SR_TEST_ROOTFS=
fi
if [ -n "${SR_TEST_ROOTFS-}" ] &&
   ! curl -sfI --max-time 20 http://deb.debian.org/debian/dists/bookworm/Release >/dev/null 2>&1; then
	export SR_TEST_ROOTFS_WHY="Debian's archive (deb.debian.org) is not reachable from here" SR_TEST_ROOTFS=
fi
node "$SR_ROOT/tests/mcp/apt.mjs"
exit $?
