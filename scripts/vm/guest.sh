#!/bin/bash
# scripts/vm/guest.sh TREE - PID 1 of the VM once its root is up (see
# scripts/vm/init). It finishes the mounts a booted system has, gives the
# unprivileged test account a cgroup v2 subtree delegated the way systemd's
# Delegate=yes does, runs the suite of TREE (already built on the host) in
# it, writes the suite's exit status to the host's result directory and
# powers off.
tree=$1
user=${SR_TEST_USER:-srcheck}
out=/run/sr-vm
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LANG=C.UTF-8 HOME=/root

halt() {
	sync
	echo o >/proc/sysrq-trigger
	sleep 60
}
fatal() {
	echo "sr-vm: fatal: $*"
	echo 111 >"$out/rc" 2>/dev/null
	halt
}

# What a booted Debian mounts: fresh tmpfs for /run, /tmp and /dev/shm,
# ptys, and the cgroup v2 hierarchy alone (cgroup_no_v1=all). And the
# links udev makes in /dev, which devtmpfs has not: without /dev/fd, bash's
# process substitution, <(...), names a file that is not there.
dev_links() {
	ln -sfn /proc/self/fd /dev/fd &&
	ln -sfn /proc/self/fd/0 /dev/stdin &&
	ln -sfn /proc/self/fd/1 /dev/stdout &&
	ln -sfn /proc/self/fd/2 /dev/stderr
}
# A tree under /tmp or /dev/shm (a CI clone, say) would be hidden by the
# fresh tmpfs mounted there: it is bound to /run/sr-tree first, and used
# from there.
keep_tree() {
	case $tree/ in
	/tmp/* | /dev/shm/*)
		mkdir -p /run/sr-tree && mount --bind "$tree" /run/sr-tree || return 1
		tree=/run/sr-tree ;;
	esac
}
mount_system() {
	mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /run &&
	keep_tree &&
	mkdir -p "$out" &&
	mount -t 9p -o trans=virtio,version=9p2000.L srout "$out" &&
	mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp &&
	mkdir -p /dev/shm &&
	mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm &&
	dev_links &&
	mkdir -p /dev/pts &&
	mount -t devpts -o gid=5,mode=0620,ptmxmode=0666 devpts /dev/pts &&
	mount -t cgroup2 -o nsdelegate,memory_recursiveprot cgroup2 /sys/fs/cgroup &&
	mount -t securityfs securityfs /sys/kernel/security &&
	mount -t tmpfs -o mode=0755 tmpfs "$tree/.vm" || return 1
	mkdir -p /dev/mqueue && mount -t mqueue mqueue /dev/mqueue
	ip link set lo up
	hostname sr-vm
	return 0
}

# A subtree for USER as systemd's Delegate=yes makes it: the parent enables
# the controllers for its children, and the user owns the directory and
# its cgroup.procs, cgroup.subtree_control and cgroup.threads.
delegate() {
	local slice=/sys/fs/cgroup/user.slice dir=/sys/fs/cgroup/user.slice/sr-check.scope c
	for c in memory pids cpu; do
		echo "+$c" >/sys/fs/cgroup/cgroup.subtree_control || return 1
	done
	mkdir -p "$slice" || return 1
	for c in memory pids cpu; do
		echo "+$c" >"$slice/cgroup.subtree_control" || return 1
	done
	mkdir -p "$dir" &&
	chown "$user": "$dir" "$dir/cgroup.procs" "$dir/cgroup.subtree_control" \
		"$dir/cgroup.threads" || return 1
	echo "$dir"
}

# All of it read before any of it runs: bash reads a script as it goes,
# and the tree may be edited while the VM runs.
main() {
mount_system || fatal "unable to mount the guest's file systems"
[ -f "$out/env" ] && . "$out/env"
: >"$out/booted"
echo "# vm: Linux $(uname -r), cgroup v2 only; $(nproc) CPUs, $(free -m | awk '/^Mem:/ { print $2 }') MiB"
id -u "$user" >/dev/null 2>&1 ||
	useradd --system --no-create-home --home-dir /nonexistent \
		--shell /usr/sbin/nologin "$user" || fatal "unable to create the account $user"
# Under TCG (the subset of scripts/vm/tcg-tests) the pinned npm trees,
# whose copy takes minutes under emulation, are staged for the test account
# as links to read-only binds of the shared tree's under /run/sr-nm, which
# it can reach wherever the checkout sits (scripts/stage.sh).
if [ "${SR_VM_SUBSET:-}" = 1 ]; then
	for nm in "$tree"/tests/*/node_modules; do
		[ -d "$nm" ] || continue
		# Named node_modules still: Node looks for a package's own
		# dependencies in the node_modules above its real path.
		d=/run/sr-nm/$(basename "$(dirname "$nm")")/node_modules
		mkdir -p "$d" && mount --bind "$nm" "$d" && mount -o remount,bind,ro "$d" ||
			fatal "unable to bind $nm for the test account"
	done
	export SR_STAGE_NM_DIR=/run/sr-nm
fi
cg=$(delegate) || fatal "unable to delegate a cgroup to $user"
echo "# vm: $cg delegated to $user (controllers: $(cat "$cg/cgroup.controllers"))"
# The suite runs in the delegated cgroup: tests/run, started as root, runs
# tests/root/*.t, then the rest as $user, a child that starts where we are.
# SR_VM=1 lets the tests that change the machine (tests/root/userns-sysctl.t
# sets the user-namespace sysctls) run: this machine is the VM's.
cd "$tree" || fatal "no tree at $tree"
export SR_VM=1
# TESTS naming tests/root/*.t (which tests/run runs only without TESTS):
# those run as root, after the rest.
roots= rest=
for t in ${TESTS:-}; do
	case $t in tests/root/*) roots="$roots $t" ;; *) rest="$rest $t" ;; esac
done
# Through a pipe, as under make check: prove draws no progress on a console.
(
	echo 0 >"$cg/cgroup.procs" || exit 111
	rc=0
	if [ -n "${SR_VM_RUN:-}" ]; then
		. "$tree/scripts/stage.sh"
		sr_stage_run "$tree" "$user" "$SR_VM_RUN" SR_VM_ACCEL_USED="${SR_VM_ACCEL_USED:-}" SR_BENCH_QUICK="${SR_BENCH_QUICK:-}" </dev/null 2>&1 | cat
		exit "${PIPESTATUS[0]}"
	fi
	if [ -z "${TESTS:-}" ] || [ -n "$rest" ]; then
		SR_TEST_USER=$user SAN="${SAN:-}" TESTS="${rest# }" PROVE_FLAGS="${PROVE_FLAGS:-}" \
			bash tests/run </dev/null 2>&1 | cat
		rc=${PIPESTATUS[0]}
	fi
	if [ -n "$roots" ]; then
		echo "# tests: as root:$roots"
		# shellcheck disable=SC2086
		SR_ROOT=$tree SR_TEST_USER=$user prove --exec '' ${PROVE_FLAGS:-} $roots </dev/null 2>&1 | cat
		[ "${PIPESTATUS[0]}" = 0 ] || rc=1
	fi
	exit "$rc"
)
rc=$?
echo "$rc" >"$out/rc"
halt
}
main "$@"
exit
