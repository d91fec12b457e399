#!/bin/bash
# A host whose /etc/resolv.conf is a symbolic link (systemd-resolved's
# ../run/systemd/resolve/stub-resolv.conf) still resolves names in a jail
# with --share-net: sr-jail binds the file the link leads to, since the
# jail has no /run of the host's. Needs root for a private mount namespace
# whose /etc has such a link.
. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (make check started as root runs it)"
command -v unshare >/dev/null || skip_all "unshare is not installed"
mkdir -p "$T/real" && chmod 0755 "$T" "$T/real"
echo "nameserver 192.0.2.53 # sr-test-resolv" > "$T/real/resolv.conf"
cp -a /etc "$T/etc"
rm -f "$T/etc/resolv.conf"
ln -s "$T/real/resolv.conf" "$T/etc/resolv.conf"
# in a mount namespace of its own, /etc is the copy with the link
injail() {
	unshare -m sh -c 'mount --make-rprivate / && mount --bind "$1/etc" /etc && shift && exec "$@"' \
		sh "$T" "$@"
}
run injail sh -c 'test -L /etc/resolv.conf && cat /etc/resolv.conf'
like "$out" "sr-test-resolv" "the host side: /etc/resolv.conf is a link to the test's file (control)"
run injail sr-jail --share-net sh -c 'test -L /etc/resolv.conf && echo link; cat /etc/resolv.conf'
like "$out" "^nameserver 192.0.2.53 # sr-test-resolv" "--share-net: the jail's /etc/resolv.conf is the file the link leads to"
unlike "$out" "^link" "... bound as a file, not a link that would lead nowhere in the jail"
run injail sr-jail sh -c 'ls /real 2>&1; ls "$0" 2>&1' "$T"
unlike "$out" "resolv.conf" "the link's target directory is not in the jail"
rm -f "$T/etc/resolv.conf"
ln -s "$T/none/resolv.conf" "$T/etc/resolv.conf"
run injail sr-jail sh -c 'cat /etc/resolv.conf 2>&1; echo rc=$?'
like "$out" "rc=1" "a link that leads nowhere: no /etc/resolv.conf in the jail, and the jail starts"
done_testing
