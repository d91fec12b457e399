#!/bin/bash
# Where the host's own sysctls turn unprivileged user namespaces off,
# sr-jail and sr-mcp, run by an ordinary user, say so in one line naming
# the setting and the command that turns them on. This changes the
# machine's sysctls (and puts them back): it runs only in the VM of
# make check-vm (SR_VM=1, set by scripts/vm/guest.sh), whose Debian kernel
# has Debian's kernel.unprivileged_userns_clone too. tests/38-jail-userns-off.t
# shows the same without changing anything, in a user namespace of its own.
. "$(dirname "$0")/../lib.sh"

[ "${SR_VM:-}" = 1 ] || skip_all "changes the machine's sysctls: make check-vm runs it, in its VM"
need_two_users

chmod 0755 "$T"
mkdir -m 0755 "$T/bin" "$T/st"
cp "$SR_ROOT/sr-jail/sr-jail" "$SR_ROOT/sr-mcp/sr-mcp" "$T/bin/"
# sr-mcp finds its runners beside it (it refuses to start without any).
cp -r "$SR_ROOT/sr-mcp/runners" "$T/bin/runners"
chmod -R a+rX "$T/bin"
chown "$victim": "$T/st"
chmod 0700 "$T/st"
as_victim() { runuser -u "$victim" -- env -i PATH="$T/bin:/usr/bin:/bin" LANG=C.UTF-8 "$@"; }
call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sandbox_info","arguments":{}}}'

# knob value-that-turns-them-off command-that-turns-them-on
try_knob() {
	local knob=$1 off=$2 fix=$3 file=/proc/sys/${1//.//} was
	if [ ! -e "$file" ]; then
		skip "$knob=$off: sr-jail's diagnosis" "this kernel has no $knob"
		return
	fi
	was=$(cat "$file")
	at_exit "echo $was > $file"
	run as_victim sr-jail sh -c 'echo RAN'
	is "$rc:$out" 0:RAN "control: with $knob=$was sr-jail runs"
	echo "$off" > "$file" || { skip "$knob=$off" "cannot set it"; return; }
	run as_victim sr-jail sh -c 'echo RAN'
	is "$rc:$out" 111: "$knob=$off: sr-jail exits 111, running nothing"
	is "$(printf '%s\n' "$err" | wc -l | tr -d ' ')" 1 "$knob=$off: one line"
	like "$err" "^sr-jail: fatal: unable to create the namespaces .*\\($knob=$off\\)" \
		"$knob=$off: it names the setting"
	like "$err" "as root: $fix, and to keep it echo ${fix#sysctl -w } >/etc/sysctl.d/" \
		"$knob=$off: and the command and the file that turn them on"
	run mcp_call "$call" runuser -u "$victim" -- env -i PATH="$T/bin:/usr/bin:/bin" \
		LANG=C.UTF-8 "$T/bin/sr-mcp" --state-dir "$T/st"
	like "$(json_get "$out" result.content.0.text)" "sandbox cannot run here .*$fix" \
		"$knob=$off: sr-mcp's sandbox_info says the same"
	[ -n "$out" ] || diag "sr-mcp answered nothing: exit $rc: $err"
	echo "$was" > "$file"
	run as_victim sr-jail sh -c 'echo RAN'
	is "$rc:$out" 0:RAN "$knob set back to $was: sr-jail runs again"
}
try_knob kernel.unprivileged_userns_clone 0 "sysctl -w kernel.unprivileged_userns_clone=1"
try_knob user.max_user_namespaces 0 "sysctl -w user.max_user_namespaces=15000"
if [ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ]; then
	skip "kernel.apparmor_restrict_unprivileged_userns=1" "not set here: it needs AppArmor's policy loaded (tests/39-apparmor-profile.t checks the profile)"
else
	skip "kernel.apparmor_restrict_unprivileged_userns=1" "this kernel has no such sysctl (Ubuntu's)"
fi
done_testing
