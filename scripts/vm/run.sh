#!/bin/bash
# scripts/vm/run.sh - make check-vm: the suite in a VM running Debian 12's
# own kernel, with cgroup v2 alone and a subtree delegated to the test
# account. The tree must be built (the Makefile does it); the guest sees it
# through this machine's root, shared read-only (scripts/vm/init), and runs
# it with scripts/vm/guest.sh. Prints the suite's TAP and exits with its
# status; a TAP skip where /dev/kvm cannot be used.
#
# SR_VM_TIMEOUT (seconds, 3600), SR_VM_BOOT_TIMEOUT (seconds to reach the
# suite, 120), SR_VM_MEM (MiB, 4096), SR_VM_CPUS (2), SR_VM_ACCEL (auto:
# KVM where /dev/kvm can boot Debian's kernel, else TCG, which emulates the
# CPU: the same guest, ten to twenty times slower; kvm or tcg to insist),
# SR_VM_TESTS (what runs when TESTS is not given: all, or subset, the
# tests of scripts/vm/tcg-tests; all under KVM, subset under TCG); TESTS,
# PROVE_FLAGS and SAN are passed to the suite as by make check. SR_VM_RUN
# (a script of the tree, such as bench/vm.sh) runs instead of the suite.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cache=$root/.vm
out=$cache/out
timeout=${SR_VM_TIMEOUT:-3600}
boot_timeout=${SR_VM_BOOT_TIMEOUT:-120}
accel=${SR_VM_ACCEL:-auto}
# The modules the initramfs loads, with what they depend on.
MODULES="virtio_pci 9pnet_virtio 9p overlay"

fatal() {
	echo "check-vm: fatal: $*" >&2
	exit 111
}

# Can this process create a KVM virtual machine? (KVM_GET_API_VERSION is
# 12, KVM_CREATE_VM succeeds.)
kvm_usable() {
	[ -e /dev/kvm ] || { echo "/dev/kvm is missing"; return 1; }
	# PVM (kvm_pvm: KVM without hardware virtualisation, nested in a VM)
	# runs only kernels built as PVM guests; Debian's hangs at boot.
	if [ -d /sys/module/kvm_pvm ] && [ ! -d /sys/module/kvm_intel ] && [ ! -d /sys/module/kvm_amd ]; then
		echo "/dev/kvm is kvm_pvm, which boots only PVM guest kernels, not Debian's"
		return 1
	fi
	python3 -c 'import os, fcntl
fd = os.open("/dev/kvm", os.O_RDWR | os.O_CLOEXEC)
assert fcntl.ioctl(fd, 0xAE00) == 12
fcntl.ioctl(fd, 0xAE01, 0)' 2>/dev/null ||
		{ echo "/dev/kvm is not usable by $(id -un) (cannot create a VM)"; return 1; }
}

# qemu and a static busybox (the initramfs), from Debian's archive.
need_packages() {
	local p s missing=
	for p in qemu-system-x86 busybox-static; do
		s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
		case $s in *" installed") ;; *) missing="$missing $p" ;; esac
	done
	[ -z "$missing" ] && return 0
	[ "$(id -u)" = 0 ] || fatal "these Debian packages are needed:$missing (as root: apt-get install$missing)"
	echo "# check-vm: installing missing Debian packages:$missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null 2>&1 &&
		  apt-get install -y -q --no-install-recommends $missing >/dev/null; } ||
		fatal "apt-get could not install:$missing"
}

# Debian's kernel (the package linux-image-amd64 points to), unpacked
# into .vm/kernel-VERSION/ once: vmlinuz and the modules MODULES needs.
fetch_kernel() {
	local pkg dir tmp
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	if [ -z "$pkg" ]; then
		dir=$(ls -d "$cache"/kernel-* 2>/dev/null | tail -n 1)
		[ -n "$dir" ] || fatal "apt-cache knows no linux-image-amd64 and no kernel is cached in $cache"
		echo "$dir"
		return
	fi
	dir=$cache/kernel-${pkg#linux-image-}
	if [ ! -f "$dir/vmlinuz" ]; then
		tmp=$(mktemp -d "$cache/dl.XXXXXX") || fatal "unable to create a directory in $cache"
		(cd "$tmp" && apt-get download -q "$pkg" >/dev/null 2>&1) ||
			fatal "apt-get download $pkg failed"
		dpkg-deb -x "$tmp"/*.deb "$tmp/x" || fatal "unable to unpack $pkg"
		unpack_kernel "$tmp/x" "$dir.new" || fatal "$pkg has no usable kernel or modules"
		rm -rf "$tmp" "$dir"
		mv "$dir.new" "$dir"
	fi
	echo "$dir"
}

# From an unpacked kernel package X to DIR: vmlinuz, modules/*.ko and
# modules.order, each module after those it depends on (from the
# depends= of its .modinfo; the package has no modules.dep).
unpack_kernel() {
	local x=$1 dir=$2 order=" " m
	rm -rf "$dir" && mkdir -p "$dir/modules" || return 1
	cp "$x"/boot/vmlinuz-* "$dir/vmlinuz" || return 1
	add_module() {
		local f d
		case $order in *" $1 "*) return 0 ;; esac
		f=$(find "$x/lib/modules" -name "$1.ko" | head -n 1)
		[ -n "$f" ] || { echo "check-vm: module $1 not found" >&2; return 1; }
		for d in $(grep -a -o 'depends=[a-z0-9_,-]*' "$f" | head -n 1 | cut -d= -f2 | tr , ' '); do
			add_module "$d" || return 1
		done
		cp "$f" "$dir/modules/" && order="$order$1 "
	}
	for m in $MODULES; do
		add_module "$m" || return 1
	done
	echo $order | tr ' ' '\n' >"$dir/modules.order"
}

# The initramfs: busybox, the modules and scripts/vm/init.
build_initrd() {
	local kdir=$1 img=$2 d a
	d=$(mktemp -d "$cache/initrd.XXXXXX") || return 1
	mkdir -p "$d/bin" "$d/proc" "$d/sys" "$d/dev" &&
	cp /bin/busybox "$d/bin/busybox" &&
	for a in sh mount insmod switch_root mkdir cat sleep; do ln -s busybox "$d/bin/$a"; done &&
	cp -r "$kdir/modules" "$kdir/modules.order" "$d/" &&
	cp "$root/scripts/vm/init" "$d/init" &&
	(cd "$d" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) >"$img"
	local rc=$?
	rm -rf "$d"
	return $rc
}

# Boot; the console is our stdout; kill qemu after TIMEOUT seconds.
boot() {
	local kdir=$1 img=$2 qpid tpid qrc start=$SECONDS
	rm -f "$cache/console" && mkfifo "$cache/console" || return 111
	sed -u 's/\r//g' <"$cache/console" &
	tpid=$!
	local cpu="-accel kvm -cpu host,-arch-capabilities"
	[ "$accel" = tcg ] && cpu="-accel tcg,thread=multi -cpu max"
	# shellcheck disable=SC2086
	qemu-system-x86_64 $cpu -smp "${SR_VM_CPUS:-2}" -m "${SR_VM_MEM:-4096}" \
		-nodefaults -no-reboot -display none -monitor none -serial stdio \
		-kernel "$kdir/vmlinuz" -initrd "$img" \
		-append "console=ttyS0 quiet loglevel=3 panic=-1 cgroup_no_v1=all sr.tree=$root" \
		-virtfs local,path=/,mount_tag=srroot,security_model=passthrough,readonly=on,multidevs=remap \
		-virtfs local,path="$out",mount_tag=srout,security_model=none \
		</dev/null >"$cache/console" 2>&1 &
	qpid=$!
	trap 'kill $qpid 2>/dev/null' EXIT INT TERM
	while kill -0 "$qpid" 2>/dev/null; do
		if [ $((SECONDS - start)) -ge "$timeout" ]; then
			kill "$qpid" 2>/dev/null
			echo "check-vm: the VM ran over ${timeout}s (SR_VM_TIMEOUT) and was killed" >&2
			break
		fi
		if [ ! -e "$out/booted" ] && [ $((SECONDS - start)) -ge "$boot_timeout" ]; then
			kill "$qpid" 2>/dev/null
			echo "check-vm: the VM did not boot within ${boot_timeout}s (SR_VM_BOOT_TIMEOUT) and was killed" >&2
			break
		fi
		sleep 1
	done
	wait "$qpid"
	qrc=$?
	wait "$tpid"
	trap - EXIT INT TERM
	rm -f "$cache/console"
	echo "# check-vm: the VM ran $((SECONDS - start)) s (qemu exit $qrc)"
}

# Can qemu run here at all, with TCG? (It lists its accelerators.)
qemu_usable() {
	qemu-system-x86_64 -accel help 2>/dev/null | grep -qx tcg ||
		{ echo "qemu-system-x86_64 cannot run here ($(qemu-system-x86_64 -version 2>&1 | head -n 1))"; return 1; }
}

# The tests of scripts/vm/tcg-tests this tree has, on one line.
subset() {
	local t list=
	for t in $(sed 's/#.*//' "$root/scripts/vm/tcg-tests"); do
		if [ -f "$root/$t" ]; then list="$list $t"
		else echo "# check-vm: $t (scripts/vm/tcg-tests) is not in this tree: passed over" >&2; fi
	done
	echo "${list# }"
}

# All of it read before any of it runs: bash reads a script as it goes,
# and the tree may be edited while the VM runs.
main() {
case $accel in
auto) if why=$(kvm_usable); then accel=kvm
      else echo "# check-vm: $why: emulating the CPU (TCG) instead"; accel=tcg; fi ;;
kvm) why=$(kvm_usable) || { echo "1..0 # SKIP $why (SR_VM_ACCEL=auto or tcg emulates the CPU instead)"; exit 0; } ;;
tcg) ;;
*) echo "check-vm: fatal: SR_VM_ACCEL: expected auto, kvm or tcg: '$accel'" >&2; exit 100 ;;
esac
need_packages
why=$(qemu_usable) || { echo "1..0 # SKIP $why"; exit 0; }
which=${SR_VM_TESTS:-$([ "$accel" = kvm ] && echo all || echo subset)}
# SR_VM_RUN=SCRIPT (make bench: bench/vm.sh) runs that script of the tree
# as the account in its delegated cgroup instead of the suite.
[ -n "${SR_VM_RUN:-}" ] && { which=run; SR_VM_SUBSET=1; }
case $which in
run) [ -f "$root/$SR_VM_RUN" ] || fatal "SR_VM_RUN: no such script in the tree: $SR_VM_RUN" ;;
all) ;;
subset) if [ -z "${TESTS:-}" ]; then
		TESTS=$(subset)
		SR_VM_SUBSET=1
		echo "# check-vm: under TCG, the tests of scripts/vm/tcg-tests ($(echo $TESTS | wc -w) files; SR_VM_TESTS=all for every one)"
	fi ;;
*) echo "check-vm: fatal: SR_VM_TESTS: expected all or subset: '$which'" >&2; exit 100 ;;
esac
mkdir -p "$cache" || fatal "unable to create $cache"
kdir=$(fetch_kernel) || exit 111
build_initrd "$kdir" "$cache/initrd.img" || fatal "unable to build the initramfs"
rm -rf "$out" && mkdir -p "$out" || fatal "unable to create $out"
printf 'TESTS=%q PROVE_FLAGS=%q SAN=%q SR_VM_SUBSET=%q SR_VM_RUN=%q SR_VM_ACCEL_USED=%q SR_BENCH_QUICK=%q\n' \
	"${TESTS:-}" "${PROVE_FLAGS:-}" "${SAN:-}" "${SR_VM_SUBSET:-}" "${SR_VM_RUN:-}" "$accel" "${SR_BENCH_QUICK:-}" >"$out/env"
boot "$kdir" "$cache/initrd.img"
[ -s "$out/rc" ] || fatal "the VM stopped without the suite's result"
exit "$(cat "$out/rc")"
}
main "$@"
exit
