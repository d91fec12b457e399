#!/bin/bash
# make install-apparmor: the AppArmor profile that lets the installed
# sr-jail create user namespaces where AppArmor restricts them (Ubuntu
# 23.10 and later), installed into a DESTDIR for sr-jail where BINDIR says,
# and read by apparmor_parser -Q (parse only: nothing is loaded).
. "$(dirname "$0")/lib.sh"

d=$T/dest
run make -s -C "$SR_ROOT" install-apparmor BINDIR=/opt/sr/bin DESTDIR="$d"
is "$rc" 0 "make install-apparmor into a DESTDIR succeeds"
p=$d/etc/apparmor.d/sr-jail
ok "the profile is /etc/apparmor.d/sr-jail" test -f "$p"
is "$(stat -c %a "$p" 2>/dev/null)" 644 "mode 0644"
like "$(cat "$p")" 'profile sr-jail "/opt/sr/bin/sr-jail" flags=\(unconfined\) \{' \
	"it attaches to sr-jail where BINDIR says"
like "$(cat "$p")" '^  userns,$' "it has the userns rule"
unlike "$(cat "$p")" '@BINDIR@' "nothing is left to fill in"
run make -s -C "$SR_ROOT" uninstall-apparmor BINDIR=/opt/sr/bin DESTDIR="$d"
ok "make uninstall-apparmor removes it" test "$rc" = 0 -a ! -e "$p"
run make -s -C "$SR_ROOT" install-apparmor BINDIR=/opt/sr/bin DESTDIR="$d"

parser=$(PATH=$PATH:/usr/sbin:/sbin command -v apparmor_parser)
if [ -z "$parser" ]; then
	for t in "the profile parses" "control: a bad rule is refused"; do
		skip "$t" "apparmor_parser is not installed (Debian's apparmor package)"
	done
	done_testing
	exit
fi
version=$("$parser" --version 2>/dev/null | sed -n '1s/.*version \([0-9.]*\).*/\1/p')
# Everything but the userns rule and the ABI it needs is AppArmor 3's too.
grep -v -e '^abi ' -e '^  userns,$' "$p" > "$T/base"
# control: the parser does refuse what is not AppArmor
sed 's/^\(  include if exists\)/  usernz,\n\1/' "$T/base" > "$T/bad"
run "$parser" -Q -K "$T/bad"
ok "control: apparmor_parser -Q refuses the profile with a bad rule" test "$rc" != 0
run "$parser" -Q -K "$T/base"
is "$rc" 0 "the profile without its userns rule parses (apparmor_parser $version)"
[ "$rc" = 0 ] || diag "$err"
case $version in
[0-3].*)
	skip "the profile parses, userns rule and all" \
		"apparmor_parser $version predates the userns rule (AppArmor 4.0: Ubuntu 23.10+, Debian 13)" ;;
*)
	run "$parser" -Q -K "$p"
	is "$rc" 0 "the profile parses, userns rule and all (apparmor_parser $version)"
	[ "$rc" = 0 ] || diag "$err" ;;
esac
done_testing
