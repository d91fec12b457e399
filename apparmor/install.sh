#!/bin/sh
# apparmor/install.sh install|uninstall BINDIR [DESTDIR] - make
# install-apparmor: apparmor/sr-jail.in, with BINDIR (where sr-jail is
# installed) put in, as DESTDIR/etc/apparmor.d/sr-jail; then, installing
# onto this system (no DESTDIR) where AppArmor is on, loaded with
# apparmor_parser -r. Where this system's AppArmor cannot read the userns
# rule (before AppArmor 4.0) and does not restrict user namespaces, no
# profile is needed: it says so and installs nothing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
what=${1:-}
bindir=${2:-}
dest=${3:-}
dir=$dest/etc/apparmor.d
file=$dir/sr-jail
restrict=/proc/sys/kernel/apparmor_restrict_unprivileged_userns
fatal() {
	echo "install-apparmor: fatal: $*" >&2
	exit 111
}
case $what:$bindir in
install:/*|uninstall:/*) ;;
*) echo "install-apparmor: usage: install.sh install|uninstall BINDIR [DESTDIR] (BINDIR absolute)" >&2; exit 100 ;;
esac
parser=$(PATH=$PATH:/usr/sbin:/sbin command -v apparmor_parser)
live=
[ -z "$dest" ] && [ -n "$parser" ] && [ -d /sys/kernel/security/apparmor ] && live=1

if [ "$what" = uninstall ]; then
	if [ -f "$file" ] && [ -n "$live" ]; then
		"$parser" -R "$file" >/dev/null 2>&1 || echo "install-apparmor: warning: apparmor_parser -R $file failed (not loaded?)" >&2
	fi
	rm -f "$file"
	exit 0
fi

tmp=$(mktemp) || fatal "unable to create a temporary file"
trap 'rm -f "$tmp"' EXIT
sed "s|@BINDIR@|$bindir|g" "$here/sr-jail.in" >"$tmp" || fatal "unable to write the profile"
if [ -n "$parser" ] && ! "$parser" -Q -K "$tmp" >/dev/null 2>&1; then
	v=$("$parser" --version 2>/dev/null | head -n 1)
	if [ -n "$dest" ]; then
		echo "install-apparmor: warning: $v here cannot read the profile (the userns rule needs AppArmor 4.0); installed into $dest all the same" >&2
	elif [ ! -e "$restrict" ]; then
		echo "install-apparmor: $v cannot read the userns rule (AppArmor 4.0), and this kernel does not restrict user namespaces ($restrict is missing): sr-jail needs no profile here; nothing installed"
		exit 0
	else
		fatal "$v cannot read the profile $here/sr-jail.in: $("$parser" -Q -K "$tmp" 2>&1 | grep -v '^Cache' | head -n 1)"
	fi
fi
install -d "$dir" && install -m 0644 "$tmp" "$file" || fatal "unable to install $file"
echo "install-apparmor: installed $file (for $bindir/sr-jail)"
if [ -n "$live" ]; then
	"$parser" -r "$file" || fatal "apparmor_parser -r $file failed: the profile is installed but not loaded"
	echo "install-apparmor: loaded (apparmor_parser -r $file)"
fi
