#!/bin/bash
# sr-jail: the network. Listeners on the host's loopback, TCP and abstract
# unix, are out of reach; lo inside works; --share-net gives that up.
. "$(dirname "$0")/lib.sh"

need_userns

# Listeners on the host: a TCP port on 127.0.0.1 and an abstract unix
# socket, each answering "pong" to whoever connects.
/usr/bin/python3 - "$T/ports" "sr-jail-test-$$" <<'PY' &
import os, socket, sys, threading
tcp = socket.socket(); tcp.bind(("127.0.0.1", 0)); tcp.listen(8)
unix = socket.socket(socket.AF_UNIX); unix.bind("\0" + sys.argv[2]); unix.listen(8)
def serve(s):
    while True:
        c, _ = s.accept(); c.sendall(b"pong\n"); c.close()
for s in (tcp, unix):
    threading.Thread(target=serve, args=(s,), daemon=True).start()
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % tcp.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
threading.Event().wait(120)
PY
server=$!
at_exit "kill $server 2>/dev/null"
wait_for "the host listeners" 5 test -s "$T/ports"
port=$(cat "$T/ports" 2>/dev/null)
abstract="sr-jail-test-$$"

client='
import socket, sys
kind, addr = sys.argv[1], sys.argv[2]
try:
    if kind == "tcp":
        s = socket.create_connection(("127.0.0.1", int(addr)), timeout=5)
    else:
        s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect("\0" + addr)
    print(s.recv(16).decode().strip())
except OSError as e:
    print("error", e.errno)
'
run python3 -c "$client" tcp "$port"
is "$out" "pong" "control: the host TCP listener answers the test"
run python3 -c "$client" unix "$abstract"
is "$out" "pong" "control: the host abstract unix listener answers the test"

run sr-jail python3 -c "$client" tcp "$port"
is "$out" "error 111" "the host's TCP listener on loopback is out of reach (ECONNREFUSED)"
run sr-jail python3 -c "$client" unix "$abstract"
is "$out" "error 111" "the host's abstract unix listener is out of reach"
run sr-jail sh -c 'cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "'
is "$out" "lo" "the only interface inside is lo"
run sr-jail python3 -c '
import socket
s = socket.socket(); s.connect(("1.1.1.1", 53))' 
like "$err" "Network is unreachable" "no route out"

# lo is up inside: a program can talk to itself.
run sr-jail python3 -c '
import socket
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
c = socket.create_connection(srv.getsockname()); a, _ = srv.accept()
a.sendall(b"self"); print(c.recv(4).decode())'
is "$out" "self" "lo inside is up and usable"

# The program is in a network namespace of its own.
run sr-jail readlink /proc/self/ns/net
ok "the program's network namespace is not the caller's" \
	test -n "$out" -a "$out" != "$(readlink /proc/self/ns/net)"

# Where the network namespace cannot be made (here: no room under
# user.max_net_namespaces, set to 0 in a user namespace around sr-jail),
# sr-jail says so, exits 111, and the program does not run.
cat > "$T/nonet.py" <<'PY'
import ctypes, os, sys
uid, gid = os.getuid(), os.getgid()
try:
    if ctypes.CDLL(None, use_errno=True).unshare(0x10000000) < 0:  # CLONE_NEWUSER
        raise OSError(ctypes.get_errno(), "unshare")
    for f, v in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)),
                 ("gid_map", "%d %d 1" % (gid, gid))):
        with open("/proc/self/" + f, "w") as fh: fh.write(v)
    with open("/proc/sys/user/max_net_namespaces", "w") as fh: fh.write("0")
except OSError as e:
    print("setup:", e, file=sys.stderr); sys.exit(77)
os.execv(sys.argv[1], sys.argv[1:])
PY
run /usr/bin/python3 "$T/nonet.py" "$(command -v sr-jail)" sh -c 'echo RAN'
if [ "$rc" = 77 ]; then
	skip "no network namespace: 111, program not run" "$err"
else
	is "$rc$out" "111" "no network namespace: 111, program not run"
	like "$err" "^sr-jail: fatal: unable to create the namespaces \\(.*, net\\)" "the step is named"
fi

# --share-net gives up network isolation (the control for the above).
run sr-jail --share-net python3 -c "$client" tcp "$port"
is "$out" "pong" "--share-net: the host's TCP listener is reachable"
run sr-jail --share-net python3 -c "$client" unix "$abstract"
is "$out" "pong" "--share-net: the host's abstract socket is reachable"
done_testing
