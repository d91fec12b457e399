#!/bin/bash
# sr-mcp with a delegated cgroup v2 (tests/mcp/cgroup.mjs): sandbox_info
# says memory_enforcement cgroup, memory_mb bounds the whole run (shared
# memory and several processes together), and a run stopped by it says so.
# Needs a delegated cgroup: `make check-vm` has one.
. "$(dirname "$0")/lib.sh"
mcp_client_guard
cg=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)
fs=$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)
# Without one, sandbox_info says rlimit data and the rest is skipped.
if [ "$fs" = cgroup2fs ] && [ -w "$cg/cgroup.subtree_control" ]; then
	export SR_TEST_NOCGROUP=
else
	export SR_TEST_NOCGROUP="no delegated cgroup v2 here (/sys/fs/cgroup is ${fs:-missing}, $cg not ours); make check-vm runs these"
fi
san_asan && skip_all "ASan's shadow memory does not fit under a memory limit"
node "$SR_ROOT/tests/mcp/cgroup.mjs"
exit $?
