#!/usr/bin/env python3
"""tests/net/client.py - a client for sr-net's tests, run inside the jail,
talking to the proxy at 127.0.0.1:3128 byte by byte:

    client.py connect HOST PORT [SNI CAFILE]  CONNECT, then (with SNI) TLS
                                              and a GET; prints the status
                                              line, then the body or why not
    client.py raw                             sends stdin as it is; prints
                                              the answer's first line and body
    client.py socks CMD HOST PORT             a SOCKS5 request; prints the
                                              reply code
    client.py hold N                          opens N tunnels to api.test:80
                                              at once; prints each status
"""
import socket
import ssl
import sys

PROXY = ("127.0.0.1", 3128)


def recv_head(s):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def read_all(s, data=b""):
    while True:
        chunk = s.recv(65536)
        if not chunk:
            return data
        data += chunk


def connect(host, port, sni=None, cafile=None):
    s = socket.create_connection(PROXY, timeout=20)
    s.sendall(b"CONNECT %s:%s HTTP/1.1\r\nHost: %s:%s\r\n\r\n" % (host.encode(), port.encode(), host.encode(), port.encode()))
    head = recv_head(s)
    print(head.split(b"\r\n")[0].decode())
    if not head.startswith(b"HTTP/1.1 200"):
        head = read_all(s, head)    # a refusal: its body, to the end
    if not head.startswith(b"HTTP/1.1 200") or not sni:
        print(head.split(b"\r\n\r\n", 1)[-1].decode().strip())
        return
    ctx = ssl.create_default_context(cafile=cafile)
    ctx.check_hostname = False
    try:
        t = ctx.wrap_socket(s, server_hostname=sni)
        t.sendall(b"GET /t HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % host.encode())
        data = read_all(t)
        print(data.split(b"\r\n\r\n", 1)[-1].decode().strip())
    except (ssl.SSLError, OSError) as e:
        print("closed")


def raw():
    s = socket.create_connection(PROXY, timeout=20)
    s.sendall(sys.stdin.buffer.read())
    data = read_all(s)
    head, _, body = data.partition(b"\r\n\r\n")
    print(head.split(b"\r\n")[0].decode())
    print(body.decode(errors="replace").strip())


def socks(cmd, host, port):
    s = socket.create_connection(PROXY, timeout=20)
    s.sendall(b"\x05\x01\x00")
    if s.recv(2) != b"\x05\x00":
        print("no method")
        return
    h = host.encode()
    s.sendall(bytes([5, int(cmd), 0, 3, len(h)]) + h + int(port).to_bytes(2, "big"))
    r = s.recv(10)
    print("reply %d" % r[1] if len(r) >= 2 else "closed")


def hold(n):
    socks_ = []
    for _ in range(int(n)):
        s = socket.create_connection(PROXY, timeout=20)
        s.sendall(b"CONNECT api.test:80 HTTP/1.1\r\nHost: api.test:80\r\n\r\n")
        print(recv_head(s).split(b"\r\n")[0].decode())
        socks_.append(s)


cmd = sys.argv[1] if __name__ == "__main__" else None
if cmd == "connect":
    connect(*sys.argv[2:])
elif cmd == "raw":
    raw()
elif cmd == "socks":
    socks(*sys.argv[2:])
elif cmd == "hold":
    hold(sys.argv[2])
