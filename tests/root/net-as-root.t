#!/bin/bash
# sr-net started by root, sr-jail --net-proxy after it: the jail (uid
# 65534, sr-jail's drop of root) reaches the proxy's socket, which no other
# user can. tests/run runs this file as root after the unprivileged suite.
if [ -z "${SR_NET_NS-}" ] && [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then
	SR_NET_NS=1 exec unshare -n "$0" "$@"
fi
. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (make check started as root runs it)"
command -v curl >/dev/null || skip_all "no curl here to try the proxy"
ip link set lo up 2>/dev/null
chmod 0755 "$T"
# The proxy's voice in curl's output shows the connection reached it: a
# loopback address is refused by its class, saying so.
through() {
	run sr-net --socket "$T/$1" --resolve home.test=127.0.0.1 --allow home.test \
		sr-jail --net-proxy "$T/$1" sr-exec --net curl -sS --max-time 20 http://home.test/
}
through a.sock
like "$rc:$out" "^0:sr-net: refused home.test:80: .*127.0.0.1" \
	"root's sr-net and sr-jail: the jail's forwarder reaches the proxy (which refuses loopback, saying so)"

# The socket while the proxy runs: 65534's, 0600; another user cannot connect.
sr-net --socket "$T/b.sock" --allow home.test sleep 600 &
p=$!
at_exit "kill $p 2>/dev/null"
wait_for "the proxy's socket is made" 20 test -S "$T/b.sock"
is "$(stat -c '%u:%g %a' "$T/b.sock")" "65534:65534 600" "the socket is the jail's identity's, mode 0600"
connect='import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("connected")
except OSError as e:
    print("refused:", e.strerror)'
u=$(id -un srcheck 2>/dev/null || echo nobody)
[ "$u" = nobody ] || {
	run setpriv --reuid "$u" --regid "$u" --clear-groups /usr/bin/python3 -c "$connect" "$T/b.sock"
	is "$out" "refused: Permission denied" "another user ($u) cannot connect to it"
}
run setpriv --reuid 65534 --regid 65534 --clear-groups /usr/bin/python3 -c "$connect" "$T/b.sock"
is "$out" "connected" "the control: uid 65534 (the jail's) can"
kill $p; wait $p 2>/dev/null

# The control of the defect: a socket of root's alone (0600 root), as sr-net
# made it before, is out of the root-started jail's reach.
python3 -c 'import socket, sys, os, time
os.umask(0o177); s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4); time.sleep(600)' "$T/c.sock" &
q=$!
at_exit "kill $q 2>/dev/null"
wait_for "root's own socket is made" 20 test -S "$T/c.sock"
run sr-jail --net-proxy "$T/c.sock" sr-exec --net curl -sS --max-time 20 http://home.test/
nok "the control: a root-only socket is not reached from root's jail" test "$rc" = 0
unlike "$out" "sr-net" "... (no proxy answered)"
done_testing
