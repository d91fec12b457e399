#!/bin/bash
# sr-jail: what could leak in from the caller: open fds, environment
# secrets, the terminal.
. "$(dirname "$0")/lib.sh"

need_userns

# Inherited fds: only 0, 1, 2 (and --keep-fd) survive.
echo "fd secret" > "$T/secret"
exec 7<"$T/secret" 8>"$T/log"
run sr-jail sh -c 'cat <&7; echo x >&8'
ok "an inherited fd cannot be read" test "$rc" != 0
unlike "$out" "fd secret" "the inherited fd's file is not read"
run sr-jail sh -c 'ls /proc/self/fd | tr "\n" " "'
is "$out" "0 1 2 3 " "only 0, 1, 2 are open (3: ls's own directory)"
run sr-jail python3 -c '
import os
for fd in range(3, 1024):
    try:
        print(fd, os.readlink("/proc/self/fd/%d" % fd))
    except OSError:
        pass'
is "$out" "" "no fd above 2 in the program"
run sr-jail --keep-fd 7 sh -c 'cat <&7'
is "$out" "fd secret" "control: --keep-fd 7 passes fd 7 through"
exec 7<&- 8>&-
ok "nothing was written through fd 8" test ! -s "$T/log"

# Environment secrets do not leak.
GITHUB_TOKEN=ghp_secret SSH_AUTH_SOCK=/tmp/agent.sock AWS_SECRET_ACCESS_KEY=k SR_LIMIT_X=1 \
	LD_LIBRARY_PATH=/nonexistent run sr-jail env
unlike "$out" "ghp_secret|agent.sock|AWS_SECRET|SR_LIMIT_X|LD_LIBRARY_PATH" "no caller variable reaches the program"
GITHUB_TOKEN=ghp_secret run sr-jail sh -c 'cat /proc/1/environ | tr "\0" "\n"'
unlike "$out" "ghp_secret" "nor PID 1's environment"
GITHUB_TOKEN=ghp_secret run sr-jail --keep-env GITHUB_TOKEN printenv GITHUB_TOKEN
is "$out" "ghp_secret" "control: --keep-env passes it when asked"

# The caller's session keyring: a key put there is not found inside.
cat > "$T/keys.py" <<'PY'
import ctypes, os, sys
nr = {"x86_64": (248, 250), "aarch64": (217, 219)}.get(os.uname().machine)
if not nr:
    print("skip"); sys.exit()
add_key, keyctl = nr
libc = ctypes.CDLL(None, use_errno=True)
if sys.argv[1] == "add":
    k = libc.syscall(add_key, b"user", b"sr-jail-test", b"hunter2", 7, ctypes.c_int(-3))
    if k < 0:
        print("skip"); sys.exit()
k = libc.syscall(keyctl, 10, ctypes.c_int(-3), b"user", b"sr-jail-test", 0)  # SEARCH
if k < 0:
    print("not found", ctypes.get_errno()); sys.exit()
buf = ctypes.create_string_buffer(16)
n = libc.syscall(keyctl, 11, k, buf, 16)  # READ
print(buf.raw[:n].decode())
PY
run python3 "$T/keys.py" add
if [ "$out" = hunter2 ]; then
	ok "control: the key is in the caller's session keyring" true
	run sr-jail --ro-bind "$T/keys.py" /keys.py python3 /keys.py find
	is "$out" "not found 1" "the caller's session keyring is out of reach (keyctl refused: EPERM)"
else
	skip "the caller's session keyring is out of reach" "no keyrings here ($out)"
fi

# TIOCSTI: with the jail on a terminal (a pty that is the caller's
# controlling terminal), the program cannot push input into it.
probe='import fcntl, termios
try:
    fcntl.ioctl(0, termios.TIOCSTI, b"#")
    print("INJECTED")
except OSError as e:
    print("denied", e.errno)'
onpty="$SR_ROOT/tests/probes/onpty.py"
run python3 "$onpty" sr-jail python3 -c "$probe"
is "$out" "denied 1" "TIOCSTI into the terminal fails with EPERM (new session, no controlling tty)"
if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null)" = 0 ]; then
	skip "control: TIOCSTI works without the jail" "dev.tty.legacy_tiocsti=0 forbids it everywhere"
else
	run python3 "$onpty" python3 -c "$probe"
	like "$out" "INJECTED$" "control: without the jail, TIOCSTI on the controlling tty works"
fi
run sr-jail sh -c 'ps -o sid=,pgid=,tty= -p $$ | tr -s " "'
like "$out" "^ ?1 [0-9]+ \\?$" "the program is in PID 1's session, without a terminal"
run sr-jail sh -c 'exec 3</dev/tty' 
ok "there is no /dev/tty to open" test "$rc" != 0
done_testing
