# listen.py LOG PORTS ABSTRACT [SECONDS]: listeners on the host's loopback
# (TCP and UDP on 127.0.0.1, TCP on ::1 when the host has IPv6) and on the
# abstract unix socket ABSTRACT, for SECONDS (default 50). Their ports go
# into the file PORTS ("TCP UDP TCP6", 0 for no IPv6) once they listen; each
# connection or datagram that reaches them is logged into LOG as a line
# naming its kind (tcp, udp, tcp6, abstract).
import os, select, socket, sys, time
log, ports, abstract = sys.argv[1], sys.argv[2], sys.argv[3]
life = float(sys.argv[4]) if len(sys.argv) > 4 else 50
socks = {}
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(16); socks[t] = "tcp"
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0)); socks[u] = "udp"
names = {"tcp": t.getsockname()[1], "udp": u.getsockname()[1], "tcp6": 0}
try:
    t6 = socket.socket(socket.AF_INET6); t6.bind(("::1", 0)); t6.listen(16)
    socks[t6] = "tcp6"; names["tcp6"] = t6.getsockname()[1]
except OSError:
    pass
a = socket.socket(socket.AF_UNIX); a.bind("\0" + abstract); a.listen(16); socks[a] = "abstract"
with open(ports + ".tmp", "w") as f:
    f.write("%d %d %d\n" % (names["tcp"], names["udp"], names["tcp6"]))
os.rename(ports + ".tmp", ports)
end = time.time() + life
while time.time() < end:
    r, _, _ = select.select(list(socks), [], [], 0.5)
    for s in r:
        kind = socks[s]
        if kind == "udp":
            s.recvfrom(64)
        else:
            c, _ = s.accept(); c.close()
        with open(log, "a") as f:
            f.write(kind + "\n")
