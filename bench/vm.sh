#!/bin/bash
# bench/vm.sh - the rows `make bench` measures in the VM of make check-vm
# (Debian 12's kernel, a cgroup v2 subtree delegated to the account): the
# chain with sr-limit's cgroup (a cgroup made, limited, killed and removed
# for each run) against the same chain with --cgroup off, side by side.
# Started by scripts/vm/guest.sh as the unprivileged account, in the
# delegated cgroup (SR_VM_RUN=bench/vm.sh); prints Markdown.
set -uo pipefail
root=${SR_ROOT:?}
export SR_ROOT=$root
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH="$root/sr-limit:$root/sr-jail:$root/sr-exec:$PATH"
. "$root/bench/lib.sh"

cg=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)
echo "## sr benchmark in the VM"
echo
echo "$(uname -sr), $(nproc) CPUs, cgroup $cg (controllers: $(cat "$cg/cgroup.controllers" 2>/dev/null)), ${SR_VM_ACCEL_USED:-?}"
echo "Medians of hyperfine runs (-N); ratios against the chain without its cgroup, measured in the same run."
[ -w "$cg/cgroup.subtree_control" ] ||
	{ echo; echo "(not measured: $cg is not delegated to $(id -un))"; exit 1; }

base=(--timeout 30s)
group "The chain's cgroup: /bin/true"
ratio_to "chain, --cgroup off"
row "chain, --cgroup off" sr-limit --cgroup off --data 256M "${base[@]}" sr-jail sr-exec /bin/true
row "chain, --mem 256M (cgroup)" sr-limit --mem 256M "${base[@]}" sr-jail sr-exec /bin/true
row "chain, --mem 256M --pids 64 --cpus 1 (cgroup)" sr-limit --mem 256M --pids 64 --cpus 1 "${base[@]}" sr-jail sr-exec /bin/true
row "sr-limit alone, --cgroup off" sr-limit --cgroup off --data 256M "${base[@]}" /bin/true
row "sr-limit alone, --mem 256M (cgroup)" sr-limit --mem 256M "${base[@]}" /bin/true
bench_all
