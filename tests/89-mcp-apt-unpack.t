#!/bin/bash
# install_packages' apt, its unpacking (sr-mcp/runners/install/apt-unpack)
# attacked with hostile packages made here (tests/mcp/mkdeb.py), in the
# jail the installer uses (the test environment's root, the layer bound
# writable at /layer): set-ID bits, a device node, a fifo, `..' and absolute
# names, a hard link out, a link planted by one package that a later one
# would write through, a directory over merged-usr's /lib64 link. Each with
# its control: the same package unpacked naively (tar -p, dpkg-deb -x) does
# what the check prevents.
. "$(dirname "$0")/lib.sh"
need_userns
rootfs_env
[ -n "${SR_TEST_ROOTFS-}" ] || skip_all "${SR_TEST_ROOTFS_WHY:-no Debian rootfs}"
D=$(realpath "$SR_TEST_ROOTFS")
[ -x "$D/usr/bin/dpkg-deb" ] || skip_all "the test environment has no dpkg-deb"
U=$SR_ROOT/sr-mcp/runners/install/apt-unpack
K=$T/debs
mkdir -p "$K" "$T/out"
mk() { python3 "$SR_ROOT/tests/mcp/mkdeb.py" "$K/$1.deb" "$1" "$2"; }
dirs='["d","./",493,null],["d","./usr/",493,null],["d","./usr/bin/",493,null],["d","./usr/share/",493,null]'
mk sr-suid "[$dirs,[\"f\",\"./usr/bin/sr-suid\",2541,\"#!/bin/sh\\necho suid\\n\"],[\"f\",\"./usr/bin/sr-sgid\",1517,\"x\"]]"
mk sr-dev "[$dirs,[\"f\",\"./usr/share/sr-dev-ok\",420,\"x\"],[\"c\",\"./usr/share/sr-null\",438,null]]"
mk sr-fifo "[$dirs,[\"p\",\"./usr/share/sr-fifo\",420,null]]"
mk sr-dots "[$dirs,[\"f\",\"./usr/../../sr-escape\",420,\"x\"]]"
mk sr-abs "[$dirs,[\"f\",\"/sr-abs\",420,\"x\"]]"
mk sr-hard "[$dirs,[\"h\",\"./usr/share/sr-passwd\",420,\"../../etc/passwd\"]]"
mk sr-link "[$dirs,[\"l\",\"./usr/share/sr-evil\",511,\"/out/x\"]]"
mk sr-file "[$dirs,[\"f\",\"./usr/share/sr-evil\",420,\"written through\"]]"
mk sr-through "[$dirs,[\"d\",\"./usr/share/sr-evil/\",493,null],[\"f\",\"./usr/share/sr-evil/x\",420,\"written through\"]]"
mk sr-merged "[[\"d\",\"./\",493,null],[\"d\",\"./lib64/\",493,null],[\"f\",\"./lib64/sr-merged\",420,\"m\"],[\"d\",\"./bin/\",493,null],[\"f\",\"./bin/sr-tool\",493,\"#!/bin/sh\\necho tool\\n\"]]"
mk sr-clash "[$dirs,[\"f\",\"./usr/share/sr-clash\",420,\"x\"],[\"f\",\"./usr/share/sr-clash/x\",420,\"y\"]]"
mk sr-good "[$dirs,[\"f\",\"./usr/bin/sr-good\",493,\"#!/bin/sh\\necho good\\n\"]]"

# unpack [LAYER] DEB...: apt-unpack in the installer's jail
jail() { local l=$1; shift; sr-jail --rootfs "$D" --bind "$l" /layer --ro-bind "$K" /debs \
	--ro-bind "$U" /run/sr/apt-unpack --bind "$T/out" /out "$(command -v sr-exec)" "$@"; }
unpack() { local l=$1; shift; run jail "$l" sh /run/sr/apt-unpack "$@"; }
fresh() { rm -rf "$T/$1"; mkdir "$T/$1"; echo "$T/$1"; }
in_layer() { sr-jail --rootfs "$D" --rootfs-layer "$1" "$(command -v sr-exec)" sh -c "$2"; }

# the control of the whole: a plain package unpacks and runs
L=$(fresh good)
unpack "$L" /debs/sr-good.deb
is "$rc" 0 "control: a plain package unpacks ($err)"
run in_layer "$L" 'sr-good; dpkg -s sr-good | grep Status'
is "$out" "$(printf 'good\nStatus: install ok unpacked')" "and runs over the root, known to dpkg"

# set-ID bits
L=$(fresh suid)
run jail "$L" sh -c 'dpkg-deb --fsys-tarfile /debs/sr-suid.deb | tar -xpf - -C /layer; stat -c %A /layer/usr/bin/sr-suid /layer/usr/bin/sr-sgid'
is "$(echo $out)" "-rwsr-xr-x -rwxr-sr-x" "control: unpacked naively (tar -p), the set-user-ID and set-group-ID bits stay"
L=$(fresh suid2)
unpack "$L" /debs/sr-suid.deb
is "$rc" 0 "a package with set-ID files unpacks ($err)"
is "$(stat -c %a "$L/usr/bin/sr-suid") $(stat -c %a "$L/usr/bin/sr-sgid")" "755 755" "with the set-ID bits cleared"

# device node, fifo: refused, nothing unpacked
L=$(fresh dev)
unpack "$L" /debs/sr-dev.deb
is "$rc" 1 "a package holding a device node is refused"
like "$err" "not a file, directory or link: c" "saying why"
ok "nothing of it was unpacked (its plain file neither)" test ! -e "$L/usr/share/sr-dev-ok"
L=$(fresh fifo)
unpack "$L" /debs/sr-fifo.deb
like "$rc $err" "^1 .*not a file, directory or link: p" "a package holding a fifo is refused, saying why"

# names out of the root
for p in sr-dots sr-abs sr-hard; do
	run jail "$(fresh ctl-$p)" sh -c "dpkg-deb --fsys-tarfile /debs/$p.deb | tar -tvf -"
	run jail "$(fresh ctl-$p)" sh -c "dpkg-deb --fsys-tarfile /debs/$p.deb | tar -P -tvf -"
	like "$out" "\.\./|(^| )/sr-abs" "control: $p's archive holds the name that leaves the root"
	L=$(fresh $p)
	unpack "$L" /debs/$p.deb
	is "$rc" 1 "$p is refused"
	like "$err" "^apt: $p: refused, a name leaves the root" "saying why"
	is "$(find "$L" -mindepth 1 | wc -l)" 0 "and the layer stays empty"
done

# a link one package plants (to /out/x, a file of the jail's), another's
# file of that name would write through; and a directory of that name
echo orig > "$T/out/x"
L=$(fresh naive)
run jail "$L" sh -c 'mkdir /tmp/s1 /tmp/s2 && dpkg-deb -x /debs/sr-link.deb /tmp/s1 && dpkg-deb -x /debs/sr-file.deb /tmp/s2 && cp -a /tmp/s1/. /layer/ && cp -a /tmp/s2/. /layer/; cat /out/x'
is "$out" "written through" "control: staged and copied naively (cp -a), the second package writes through the first's link"
echo orig > "$T/out/x"
L=$(fresh link)
unpack "$L" /debs/sr-link.deb
is "$rc" 0 "the package with the link unpacks"
unpack "$L" /debs/sr-file.deb
is "$(cat "$T/out/x")" "orig" "the next package's file writes nothing through it"
is "$(cat "$L/usr/share/sr-evil")" "written through" "it replaced the link in the layer"
L=$(fresh link2)
unpack "$L" /debs/sr-link.deb
unpack "$L" /debs/sr-through.deb
is "$(ls "$T/out")" "x" "a directory of that name writes nothing through it either"
ok "(the link stays, that package refused)" test -L "$L/usr/share/sr-evil" -a "$rc" = 1
L=$(fresh link3)
unpack "$L" /debs/sr-good.deb /debs/sr-link.deb /debs/sr-file.deb
is "$(cat "$T/out/x")" "orig" "nor when they come in one install"

# a directory where the root has a link (merged-usr)
L=$(fresh naive-merged)
run jail "$L" sh -c 'dpkg-deb -x /debs/sr-merged.deb /layer'
run in_layer "$L" 'true; echo rc=$?'
isnt_ok=$([ "$out" = "rc=0" ] && echo 0 || echo 1)
is "$isnt_ok" 1 "control: unpacked naively, its /lib64 directory hides the root's link and nothing runs ($rc)"
L=$(fresh merged)
unpack "$L" /debs/sr-merged.deb
is "$rc" 0 "the package with /lib64 and /bin unpacks ($err)"
ok "into usr/lib64 and usr/bin" test -f "$L/usr/lib64/sr-merged" -a -f "$L/usr/bin/sr-tool"
ok "with no /lib64 or /bin directory in the layer" test ! -e "$L/lib64" -a ! -e "$L/bin"
run in_layer "$L" 'sr-tool; /bin/sr-tool; cat /lib64/sr-merged'
is "$out" "$(printf 'tool\ntool\nm')" "over the root, programs run and both paths reach its files"
# an install that fails part-way (the second package's files cannot be
# unpacked: a file and a directory of one name, which the checks let by)
L=$(fresh clash-ctl)
for d in sr-good sr-clash; do unpack "$L" /debs/$d.deb; done
ok "control: sr-clash fails to unpack ($rc), and unpacked one by one, sr-good stays in the layer" \
	test "$rc" = 1 -a -x "$L/usr/bin/sr-good"
L=$(fresh clash)
unpack "$L" /debs/sr-good.deb /debs/sr-clash.deb
is "$rc" 1 "in one install, the second package failing fails the install"
is "$(find "$L" -mindepth 1 | wc -l)" 0 "and the layer stays empty: sr-good is not in it"
unpack "$L" /debs/sr-good.deb
L2=$(fresh clash2)
unpack "$L2" /debs/sr-good.deb
unpack "$L2" /debs/sr-link.deb /debs/sr-clash.deb
is "$rc" 1 "over a layer that holds a package, the failed install is refused"
run in_layer "$L2" 'sr-good; dpkg -s sr-good | grep Status; dpkg -s sr-link >/dev/null 2>&1 || echo no sr-link'
is "$out" "$(printf 'good\nStatus: install ok unpacked\nno sr-link')" "and the layer is as it was: sr-good there, known to dpkg, sr-link not"
ok "(nor its link)" test ! -L "$L2/usr/share/sr-evil"

done_testing
