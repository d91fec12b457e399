#!/bin/bash
# sr-jail --rootfs DIR: the system (/usr, /bin, /lib*, /sbin, /etc's
# basics) comes from a root file system in DIR, read-only, instead of the
# host's; the isolation is the same. First a small hand-made rootfs (a
# static probe is all that runs in it), attacked: writes to it, the host's
# files through it, links in it that point at the host. Then the Debian
# rootfs `make check` builds with mmdebstrap (.cache/rootfs), with its own
# Python, when there is one.
. "$(dirname "$0")/lib.sh"

need_userns

# The probe: "r PATH" prints the file's first line or why not, "w PATH"
# tries to create it, "l PATH" reads a link, "s PATH" says whether it
# exists (tests/probes/fsprobe.c). Static, so it runs in a rootfs without
# a C library.
cc_probe_file fsprobe fsprobe.c -static

# The hand-made rootfs: a /usr with an os-release of its own, /lib64 a
# link as in merged-/usr systems, /etc/ssl a link to an absolute path
# that names a directory of the caller's on the host (an image unpacked
# from anywhere may hold such links), /etc/localtime a link.
R=$T/rootfs
secret=$T/secret
mkdir -p "$R/usr/bin" "$R/usr/lib" "$R/usr/share/zoneinfo" "$R/etc" "$secret/certs"
echo 'ID=srtestos' > "$R/usr/lib/os-release"
ln -s ../usr/lib/os-release "$R/etc/os-release"
ln -s usr/lib "$R/lib64"
ln -s /usr/share/zoneinfo/Nowhere "$R/etc/localtime"
echo 'host-secret-key' > "$secret/certs/key.pem"
ln -s "$secret" "$R/etc/ssl"
chmod -R a+rX "$R"

ok "control: on the host, the rootfs's /etc/ssl leads to the caller's secret" \
	grep -q host-secret-key "$R/etc/ssl/certs/key.pem"
run sr-jail "$T/fsprobe" r /etc/os-release s /usr/bin/gcc s /usr/bin/sh
like "$out" "r /etc/os-release: ok (PRETTY_NAME|NAME|ID)=" "control: without --rootfs the jail shows the host's /etc/os-release"
like "$out" "s /usr/bin/sh: yes" "control: without --rootfs the host's /usr/bin/sh is there"

run sr-jail --rootfs "$R" "$T/fsprobe" r /etc/os-release s /usr/bin/sh s /usr/bin/gcc \
	l /lib64 l /etc/localtime r /etc/ssl/certs/key.pem s "$secret/certs/key.pem" r /etc/passwd
is "$rc" 0 "a program runs in the rootfs"
like "$out" "r /etc/os-release: ok ID=srtestos" "/etc/os-release is the rootfs's, through its own relative link"
like "$out" "s /usr/bin/sh: No such file" "the host's /usr is not there"
like "$out" "l /lib64: usr/lib" "/lib64 is the rootfs's link"
like "$out" "l /etc/localtime: /usr/share/zoneinfo/Nowhere" "/etc/localtime is the rootfs's link"
like "$out" "r /etc/ssl/certs/key.pem: No such file" \
	"a link in the rootfs to a host path is looked up inside the rootfs, not on the host"
unlike "$out" "host-secret-key" "the caller's secret is not readable inside"
like "$out" "s $secret/certs/key.pem: No such file" "the caller's files are not visible"
like "$out" "r /etc/passwd: ok (root|sandbox):x:" "/etc/passwd is still the generated one"

# The same through .. (a relative link that climbs out of the rootfs on
# the host), and a top-level link: /usr itself leading to the host.
mkdir -p "$R/etc/pki"
ln -s "../../../../../../../../../../..$secret" "$R/etc/pki/tls"
R2=$T/rootfs2
mkdir -p "$R2"
ln -s "$secret" "$R2/usr"
ok "control: on the host, the rootfs's /etc/pki/tls leads to the caller's secret through .." \
	grep -q host-secret-key "$R/etc/pki/tls/certs/key.pem"
run sr-jail --rootfs "$R" "$T/fsprobe" r /etc/pki/tls/certs/key.pem
like "$out" "r /etc/pki/tls/certs/key.pem: No such file" ".. in a rootfs link stops at the rootfs's root"
run sr-jail --rootfs "$R2" "$T/fsprobe" l /usr r /usr/certs/key.pem
like "$out" "l /usr: $secret" "a rootfs's /usr that is a link is made again as a link"
like "$out" "r /usr/certs/key.pem: No such file" "which leads nowhere in the jail, not to the host"
rm "$R/etc/pki/tls"

# Writes: the rootfs is read-only inside, even to uid 0 of the jail.
run sr-jail --uid 0 --rootfs "$R" "$T/fsprobe" w /usr/bin/planted w /etc/os-release \
	w /usr/lib/os-release w /etc/planted w /lib64/planted
for p in /usr/bin/planted /etc/os-release /usr/lib/os-release /etc/planted /lib64/planted; do
	like "$out" "w $p: Read-only file system" "writing $p in the rootfs fails (read-only)"
done
is "$(cat "$R/usr/lib/os-release")" "ID=srtestos" "the rootfs's files are unchanged on the host"
ok "nothing was planted in the rootfs" test ! -e "$R/usr/bin/planted" -a ! -e "$R/etc/planted"
run sr-jail --bind "$R" /r "$T/fsprobe" w /r/usr/bin/planted
like "$out" "w /r/usr/bin/planted: ok" "control: the same directory bound writable can be written"
rm -f "$R/usr/bin/planted"

# The rest of the jail is as without --rootfs: /tmp and HOME writable,
# a --bind workspace, no network.
mkdir -p "$T/ws"
run sr-jail --rootfs "$R" --bind "$T/ws" /workspace "$T/fsprobe" w /tmp/x w /home/sandbox/x \
	w /workspace/made s /proc/self/ns/net
like "$out" "w /tmp/x: ok" "/tmp is writable in a rootfs jail"
like "$out" "w /home/sandbox/x: ok" "HOME is writable in a rootfs jail"
ok "a --bind workspace is written through" test -e "$T/ws/made"

# What --rootfs refuses.
ln -s "$R" "$T/rootfs-link"
run sr-jail --rootfs "$T/rootfs-link" "$T/fsprobe" s /
is "$rc" 111 "a --rootfs through a symbolic link is refused (111)"
like "$err" "^sr-jail: fatal: unable to use --rootfs .*symbolic link" "and the error says why"
run sr-jail --rootfs "$T/nowhere" "$T/fsprobe" s /
is "$rc" 111 "a missing --rootfs is a setup failure (111)"
like "$err" "^sr-jail: fatal: unable to use --rootfs $T/nowhere: No such file" "naming it"
mkdir -p "$T/empty"
run sr-jail --rootfs "$T/empty" "$T/fsprobe" s /
is "$rc" 111 "a --rootfs without usr/ is refused (111)"
like "$err" "unable to find $T/empty/usr in the --rootfs" "naming what is missing"
run sr-jail --rootfs "$T/secret/certs/key.pem" "$T/fsprobe" s /
is "$rc" 111 "a --rootfs that is a file is refused (111)"
run sr-jail --rootfs relative/dir true
is "$rc" 100 "a relative --rootfs is a usage error"
run sr-jail --rootfs "$R" --rootfs "$R" true
is "$rc" 100 "--rootfs twice is a usage error"

# The Debian rootfs built by make check (scripts/rootfs.sh).
status=$(cat "$SR_ROOT/.cache/rootfs/status" 2>/dev/null || echo "not built: run make check (scripts/rootfs.sh builds it)")
D=$(cat "$SR_ROOT/.cache/rootfs/path" 2>/dev/null)
if [ "$status" != ok ] || [ ! -x "$D/usr/bin/python3" ]; then
	skip "python in the Debian rootfs" "no Debian rootfs: $status"
	done_testing
	exit
fi
run sr-jail python3 -c 'import numpy; print("numpy", numpy.__name__)'
like "$out" "numpy numpy" "control: the host's python3 has numpy"
run sr-jail --rootfs "$D" sr-exec python3 -c '
import sys, os
print("python", sys.version.split()[0], sys.executable)
try:
    import numpy
    print("numpy yes")
except ImportError:
    print("numpy no")
print("gcc", os.path.exists("/usr/bin/gcc"))
open("/usr/lib/planted", "w")'
like "$out" "python 3\.[0-9]+\.[0-9]+ /usr/bin/python3" "the rootfs's python3 runs (through sr-exec)"
like "$out" "numpy no" "its modules are the rootfs's (no numpy in minbase), not the host's"
like "$out" "gcc False" "the host's /usr/bin/gcc is not there"
like "$err" "Read-only file system" "the rootfs is read-only to python too"
done_testing
