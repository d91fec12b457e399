#!/bin/bash
# Where user namespaces are off, sr-jail and sr-mcp say so in one line that
# names the setting and the command that turns them on, and run nothing.
# The host is not changed: user.max_user_namespaces is set to 0 in a user
# namespace made for the test (tests/probes/userns-limit.py), where the
# kernel refuses a new one as it does everywhere under the host's sysctl.
# The host's own sysctls (and Debian's kernel.unprivileged_userns_clone)
# are set in the VM only: tests/root/userns-sysctl.t.
. "$(dirname "$0")/lib.sh"

need_userns
limit=(python3 "$SR_ROOT/tests/probes/userns-limit.py")
limit() { "${limit[@]}" "$@"; }
run limit 15000 true
[ "$rc" = 0 ] || skip_all "cannot make a user namespace for the test: $err"

run limit 0 unshare --user true
ok "control: where user.max_user_namespaces is 0, unshare(1) cannot make one" test "$rc" != 0
run limit 15000 sr-jail sh -c 'echo RAN'
is "$rc:$out" "0:RAN" "control: where it is not 0, sr-jail runs there"

run limit 0 sr-jail sh -c 'echo RAN'
is "$rc" 111 "sr-jail where user namespaces are off: 111"
is "$out" "" "the program did not run"
is "$(printf '%s\n' "$err" | wc -l | tr -d ' ')" 1 "one line of diagnostics"
like "$err" "^sr-jail: fatal: unable to create the namespaces .*user\.max_user_namespaces=0" \
	"it names the setting"
like "$err" "sysctl -w user\.max_user_namespaces=15000" "and the command that changes it"
like "$err" "--allow-userns" "and, inside an outer sr-jail, the option that lifts it"

# The same diagnosis where sr-jail is root in that namespace (unshare -r),
# before dropping root there could fail for want of an id to drop to.
if command -v unshare >/dev/null; then
	run limit 15000 unshare --user --map-root-user sh -c \
		'echo 0 > /proc/sys/user/max_user_namespaces && exec sr-jail true'
	is "$rc" 111 "as root of such a namespace too: 111"
	like "$err" "^sr-jail: fatal: unable to create the namespaces .*user\.max_user_namespaces=0" \
		"with the same diagnosis"
else
	skip "as root of such a namespace" "no unshare(1)"
	skip "with the same diagnosis" "no unshare(1)"
fi

# No sysctl forbids it, but a seccomp filter around sr-jail does (a
# container's; here sr-exec's default, which refuses namespaces with EPERM).
run sr-exec sr-jail sh -c 'echo RAN'
is "$rc:$out" 111: "under a filter that refuses unshare: 111, nothing run"
like "$err" "^sr-jail: fatal: unable to create the namespaces .*Operation not permitted: no sysctl forbids it, so what runs sr-jail does \\(a container's seccomp policy" \
	"the line says no sysctl is to blame, and what is"
unlike "$err" "sysctl -w" "and names no sysctl to change"

# sr-mcp: every tool, sandbox_info and run_code alike, answers with
# sr-jail's line, for the model to tell the user.
mkdir -m 0700 "$T/st"
for tool in sandbox_info run_code; do
	args='{}'
	[ "$tool" = run_code ] && args='{"language":"bash","code":"echo RAN"}'
	call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'$tool'","arguments":'$args'}}'
	run mcp_call "$call" "${limit[@]}" 0 env "${mcp_san[@]+"${mcp_san[@]}"}" sr-mcp --state-dir "$T/st"
	is "$(json_get "$out" result.isError)" true "sr-mcp $tool where user namespaces are off: an error"
	msg=$(json_get "$out" result.content.0.text)
	like "$msg" "sandbox cannot run here .*nothing was run" "$tool: it says nothing was run"
	like "$msg" "sr-jail: fatal: unable to create the namespaces .*sysctl -w user\.max_user_namespaces=15000" \
		"$tool: with sr-jail's line, which names the fix"
	unlike "$msg" "unprivileged_userns_clone" "$tool: and no fix that is not this one"
done
call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sandbox_info","arguments":{}}}'
run mcp_call "$call" "${limit[@]}" 15000 env "${mcp_san[@]+"${mcp_san[@]}"}" sr-mcp --state-dir "$T/st"
is "$(json_get "$out" result.isError)" false "control: where they are on, sandbox_info answers"

done_testing
