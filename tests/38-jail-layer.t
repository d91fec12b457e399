#!/bin/bash
# sr-jail --rootfs-layer DIR: DIR's files over the --rootfs's, read-only,
# as overlayfs keeps an upper layer (what a workspace added to a read-only
# environment, say its packages). Attacked: writes through it, links in
# it to the caller's files, a name that would add options to the overlay,
# what it refuses. Each with a control.
. "$(dirname "$0")/lib.sh"

need_userns

# The probe of tests/38-jail-rootfs.t (tests/probes/fsprobe.c).
cc_probe_file lprobe fsprobe.c -static

# A hand-made rootfs, and a layer over it: a file of its own, one that
# replaces the rootfs's, a link to the caller's secret on the host.
R=$T/rootfs L=$T/layer secret=$T/secret
mkdir -p "$R/usr/lib" "$R/usr/share/doc/base" "$R/etc" "$L/usr/bin" "$L/usr/lib" "$L/etc" \
	"$L/usr/share/doc" \
	"$secret"
echo 'ID=srtestos' > "$R/usr/lib/os-release"
ln -s ../usr/lib/os-release "$R/etc/os-release"
echo base > "$R/usr/share/doc/base/README"
echo 'from the layer' > "$L/usr/bin/added"
echo 'ID=layered' > "$L/usr/lib/os-release"
echo 'host-secret-key' > "$secret/key.pem"
ln -s "$secret" "$L/usr/lib/keys"
chmod -R a+rX "$R" "$L"

run sr-jail --rootfs "$R" "$T/lprobe" s /usr/bin/added r /etc/os-release
like "$out" "s /usr/bin/added: No such file" "control: without --rootfs-layer the layer's file is not there"
like "$out" "r /etc/os-release: ok ID=srtestos" "control: and the rootfs's own file is"
run sr-jail --rootfs "$R" --rootfs-layer "$L" "$T/lprobe" r /usr/bin/added \
	r /etc/os-release r /usr/share/doc/base/README s "$L" r /usr/lib/keys/key.pem
is "$rc" 0 "a program runs with a layer over the rootfs"
like "$out" "r /usr/bin/added: ok from the layer" "the layer's file is there"
like "$out" "r /etc/os-release: ok ID=layered" "the layer's file wins over the rootfs's (through the rootfs's link)"
like "$out" "r /usr/share/doc/base/README: ok base" "what the layer lacks is the rootfs's, in a directory both have"
like "$out" "s $L: No such file" "the layer's host path is not visible inside"
ok "control: on the host, the layer's link leads to the caller's secret" \
	grep -q host-secret-key "$L/usr/lib/keys/key.pem"
like "$out" "r /usr/lib/keys/key.pem: No such file" \
	"a link in the layer to a host path is looked up inside the jail's root, not on the host"
unlike "$out" "host-secret-key" "the caller's secret is not readable inside"

# An opaque directory of the layer hides the rootfs's (as apt's removal
# of a directory would leave it).
if setfattr -n user.overlay.opaque -v y "$L/usr/share" 2>/dev/null ||
	python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.overlay.opaque", b"y")' \
		"$L/usr/share" 2>/dev/null; then
	run sr-jail --rootfs "$R" --rootfs-layer "$L" "$T/lprobe" s /usr/share/doc/base/README
	like "$out" "README: No such file" "an opaque directory of the layer hides the rootfs's"
else
	skip "an opaque directory of the layer" "no user xattrs on $T's file system"
fi

# Read-only, even to uid 0 of the jail: neither the layer nor the rootfs
# is written through it.
run sr-jail --uid 0 --rootfs "$R" --rootfs-layer "$L" "$T/lprobe" w /usr/bin/planted \
	w /usr/bin/added w /usr/lib/os-release w /etc/planted
for p in /usr/bin/planted /usr/bin/added /usr/lib/os-release /etc/planted; do
	like "$out" "w $p: Read-only file system" "writing $p through the layer fails (read-only)"
done
ok "nothing was planted in the layer or the rootfs" \
	test ! -e "$L/usr/bin/planted" -a ! -e "$R/usr/bin/planted"
is "$(cat "$L/usr/bin/added")" "from the layer" "the layer's file is unchanged on the host"
run sr-jail --bind "$L" /l "$T/lprobe" w /l/usr/bin/planted
like "$out" "w /l/usr/bin/planted: ok" "control: the same layer bound writable can be written"
rm -f "$L/usr/bin/planted"

# A layer path with overlayfs's separators: given by fd, it adds no
# layer and no option.
O="$T/a:b,upperdir=$T"
mkdir -p "$O/usr/bin" && echo odd > "$O/usr/bin/added" && chmod -R a+rX "$O"
run sr-jail --rootfs "$R" --rootfs-layer "$O" "$T/lprobe" r /usr/bin/added w /usr/bin/x
like "$out" "r /usr/bin/added: ok odd" "a layer whose name holds : and , is that one directory"
like "$out" "w /usr/bin/x: Read-only file system" "and adds no writable upper layer"
ok "nothing was written in $T" test ! -e "$T/usr/bin/x"

# What --rootfs-layer refuses.
ln -s "$L" "$T/layer-link"
run sr-jail --rootfs "$R" --rootfs-layer "$T/layer-link" "$T/lprobe" s /
is "$rc" 111 "a --rootfs-layer through a symbolic link is refused (111)"
like "$err" "^sr-jail: fatal: unable to use --rootfs-layer .*symbolic link" "and the error says why"
run sr-jail --rootfs "$R" --rootfs-layer "$T/nowhere" "$T/lprobe" s /
is "$rc" 111 "a missing --rootfs-layer is a setup failure (111)"
like "$err" "unable to use --rootfs-layer $T/nowhere: No such file" "naming it"
run sr-jail --rootfs-layer "$L" true
is "$rc" 100 "--rootfs-layer without --rootfs is a usage error"
run sr-jail --rootfs "$R" --rootfs-layer relative/dir true
is "$rc" 100 "a relative --rootfs-layer is a usage error"
run sr-jail --rootfs "$R" --rootfs-layer "$L" --rootfs-layer "$L" true
is "$rc" 100 "--rootfs-layer twice is a usage error"
done_testing
