#!/usr/bin/env python3
"""http-unread.py PORT N SECONDS [GAP]: N connections to 127.0.0.1:PORT, each with
a receive buffer of 4 KiB, each sending the request read from stdin (every
'@' in it replaced by the connection's number), none reading a byte of the
answer (GAP seconds apart, default 0); held open SECONDS, then closed. Prints 'sent' once all are sent.
(Node's net cannot set SO_RCVBUF: without it the kernel's loopback buffers
take megabytes of an unread answer, and the front never sees a slow reader.)"""
import socket, sys, time

port, n, secs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
gap = float(sys.argv[4]) if len(sys.argv) > 4 else 0
template = sys.stdin.read()
socks = []
for i in range(n):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    body = template.replace("@", str(i))
    head, _, data = body.partition("\r\n\r\n")
    s.sendall((head.replace("LENGTH", str(len(data.encode()))) + "\r\n\r\n" + data).encode())
    socks.append(s)
    time.sleep(gap)
print("sent", flush=True)
time.sleep(secs)
for s in socks:
    s.close()
