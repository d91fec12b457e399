#!/bin/sh
# rootfs.sh DIR - the small Debian root file system the suite runs code in
# through sr-jail --rootfs and sr-mcp --environment (tests/38-jail-rootfs.t,
# tests/89-mcp-environment.t): mmdebstrap --variant=minbase plus python3,
# built once into DIR/root (make check: DIR is .cache/rootfs, ignored by
# git and left out of the suite's staged copy). What the tests read:
#   DIR/status   "ok", or why there is no rootfs (they skip saying it)
#   DIR/path     the rootfs's absolute path
#   DIR/build.log, DIR/seconds   the last build's log and how long it took
# As root it builds in mmdebstrap's root mode; as a user in unshare mode,
# which needs subordinate ids (/etc/subuid). A build that fails (no
# network, a container that refuses mmdebstrap's mounts) is not the
# suite's failure: the tests that need the rootfs skip, saying why, and
# make check's summary lists them.
# SR_ROOTFS_SUITE (default bookworm) and SR_ROOTFS_MIRROR pick the archive.
set -u
dir=${1:?usage: rootfs.sh DIR}
mkdir -p "$dir" || exit 111
dir=$(cd "$dir" && pwd)
root=$dir/root
echo "$root" >"$dir/path"
if [ "$(cat "$dir/status" 2>/dev/null)" = ok ] && [ -x "$root/usr/bin/python3" ]; then
	exit 0
fi
fail() {
	echo "$*" >"$dir/status"
	echo "sr: warning: no Debian rootfs for the tests: $*" >&2
	exit 0
}
command -v mmdebstrap >/dev/null 2>&1 || fail "mmdebstrap is not installed (apt-get install mmdebstrap)"
if [ "$(id -u)" = 0 ]; then mode=root; else mode=unshare; fi
suite=${SR_ROOTFS_SUITE:-bookworm}
echo "sr: building a Debian $suite rootfs (minbase, python3) in $root with mmdebstrap --mode=$mode, once"
rm -rf "$root" "$root.tmp"
start=$(date +%s)
# Docs, manuals and translations left out: about 175 MB, most of it Python.
if ! mmdebstrap --mode="$mode" --variant=minbase --include=python3 \
	--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
	"$suite" "$root.tmp" ${SR_ROOTFS_MIRROR:-} >"$dir/build.log" 2>&1; then
	rm -rf "$root.tmp"
	fail "mmdebstrap --mode=$mode failed ($(tail -n 1 "$dir/build.log"); see $dir/build.log)"
fi
mv "$root.tmp" "$root" || fail "unable to move $root.tmp to $root"
end=$(date +%s)
echo $((end - start)) >"$dir/seconds"
echo ok >"$dir/status"
echo "sr: built the rootfs in $((end - start)) s ($(du -sh "$root" | cut -f1))"
