#!/bin/bash
# sr-jail: failing closed. A step that cannot be done is named, sr-jail
# exits 111, and the program never runs.
. "$(dirname "$0")/lib.sh"

need_userns

mkdir -p "$T/ws"
run sr-jail --bind /nonexistent-sr-src /x sh -c 'echo RAN'
is "$rc" 111 "a missing --bind source: 111"
is "$out" "" "the program did not run"
like "$err" "^sr-jail: fatal: unable to bind /nonexistent-sr-src: No such file" "the source is named"
run sr-jail --ro-bind "$T/nope" /x sh -c 'echo RAN'
is "$rc$out" "111" "a missing --ro-bind source: 111, program not run"
run sr-jail --tmpfs /usr/share/sr-jail-x sh -c 'echo RAN'
is "$rc$out" "111" "a destination inside read-only /usr: 111, program not run"
like "$err" "^sr-jail: fatal: unable to create .*/usr/share/sr-jail-x: Read-only file system" \
	"the step is named"
is "$(printf '%s\n' "$err" | wc -l | tr -d ' ')" 1 "one line of diagnostics"

printf 'echo hi\n' > "$T/noexec"; chmod 0644 "$T/noexec"
run sr-jail "$T/noexec"
is "$rc" 126 "a program that is not executable: 126"
run sr-jail "$T"
is "$rc" 126 "a directory: 126"

# Where user namespaces are refused, the sysctl is named: inside a jail
# nested user namespaces are off (user.max_user_namespaces=0 there).
run sr-jail --ro-bind "$SR_ROOT/sr-jail" /opt/sr sh -c '/opt/sr/sr-jail sh -c "echo RAN"'
is "$rc" 111 "sr-jail where user namespaces are off: 111"
is "$out" "" "the program did not run"
like "$err" "unable to create the namespaces .*user.max_user_namespaces" \
	"the message names the sysctl to change"
run sr-jail --allow-userns --ro-bind "$SR_ROOT/sr-jail" /opt/sr \
	sh -c '/opt/sr/sr-jail sh -c "echo nested \$(id -un)"'
is "$out" "nested sandbox" "with --allow-userns, a jail can run inside a jail"
# --ro-bind is recursive: in a jail inside a jail, / of the outer one (with
# its writable /tmp and HOME mounted below) bound read-only stays read-only.
run sr-jail --allow-userns --ro-bind "$SR_ROOT/sr-jail" /opt/sr \
	sh -c '/opt/sr/sr-jail --ro-bind / /host sh -c "ls -d /host/tmp && touch /host/tmp/x /host/home/sandbox/x" || exit 9'
is "$rc" 9 "--ro-bind makes the mounts below the source read-only too"
like "$err" "Read-only file system" "with EROFS"

# Started by root, the jail runs as nobody: tests/root/jail-as-root.t.
done_testing
