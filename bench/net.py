#!/usr/bin/env python3
"""bench/net.py - an HTTPS GET through sr-net against a direct one.

    net.py WORK ROUNDS

A TLS server of its own on 127.0.0.1 (a CA and a certificate for
bench.test made here with openssl, the server a child process), sr-net
beside it allowing bench.test, resolved to 127.0.0.1 by --resolve and let
through by --allow-address 127.0.0.1. Each round makes one GET each way,
in turn, with the same client code: direct (TCP, TLS, GET) and proxied
(sr-net's Unix socket, CONNECT bench.test:PORT, TLS, GET), so the proxy's
cost is what the two differ by: its fork per connection, its judging and
relaying. Prints a Markdown table and writes WORK/net.json.

    net.py start OUT RUNS NAME CMD NAME CMD

The chain's start with and without sr-net, in turn (start() says why)."""
import json
import os
import socket
import ssl
import statistics
import subprocess
import sys
import time

NAME = "bench.test"


def serve(cert, key, portfile):
    import http.server

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            body = b"ok\n"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(portfile + ".tmp", portfile)
    srv.serve_forever()


def make_certs(work):
    def ossl(*args):
        subprocess.run(["openssl", *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ca, cakey = f"{work}/net-ca.pem", f"{work}/net-ca.key"
    cert, key = f"{work}/net-srv.pem", f"{work}/net-srv.key"
    ossl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=sr-bench-ca",
         "-keyout", cakey, "-out", ca)
    ossl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={NAME}", "-keyout", key, "-out", f"{work}/net.csr")
    with open(f"{work}/net.san", "w") as f:
        f.write(f"subjectAltName=DNS:{NAME}\n")
    ossl("x509", "-req", "-in", f"{work}/net.csr", "-CA", ca, "-CAkey", cakey, "-CAcreateserial", "-days", "1",
         "-extfile", f"{work}/net.san", "-out", cert)
    return ca, cert, key


def get(ctx, sock):
    with ctx.wrap_socket(sock, server_hostname=NAME) as s:
        s.sendall(f"GET / HTTP/1.1\r\nHost: {NAME}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while True:
            b = s.recv(4096)
            if not b:
                break
            data += b
    if not data.startswith(b"HTTP/1.1 200") or not data.endswith(b"ok\n"):
        raise SystemExit(f"net.py: unexpected answer: {data[:80]!r}")


def direct(ctx, port):
    get(ctx, socket.create_connection(("127.0.0.1", port)))


def proxied(ctx, port, path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(f"CONNECT {NAME}:{port} HTTP/1.1\r\nHost: {NAME}:{port}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        b = s.recv(4096)  # the server says nothing before the client's hello
        if not b:
            raise SystemExit(f"net.py: the proxy closed: {head!r}")
        head += b
    if not head.startswith(b"HTTP/1.1 200") and not head.startswith(b"HTTP/1.0 200"):
        raise SystemExit(f"net.py: the proxy refused: {head.decode(errors='replace').strip()}")
    get(ctx, s)


def wait_for(path, what):
    for _ in range(300):
        if os.path.exists(path):
            return
        time.sleep(0.1)
    raise SystemExit(f"net.py: {what} did not come up in 30 s")


def start(out, runs, *pairs):
    """net.py start OUT RUNS NAME CMD NAME CMD: the two commands (shell
    words, hyperfine's form) run in turn, one of each a round, so that the
    host's load, which moves from second to second, weighs on both alike;
    OUT gets hyperfine's JSON form (command, median, min, max, times)."""
    import shlex
    cmds = [(pairs[i], shlex.split(pairs[i + 1])) for i in range(0, len(pairs), 2)]
    times = {name: [] for name, _ in cmds}
    for r in range(5 + int(runs)):
        for name, argv in cmds:
            t = time.perf_counter()
            if subprocess.run(argv, stdin=subprocess.DEVNULL).returncode != 0:
                raise SystemExit(f"net.py: '{name}' failed")
            if r >= 5:  # the first five warm up
                times[name].append(time.perf_counter() - t)
    res = [{"command": name, "median": statistics.median(times[name]), "min": min(times[name]),
            "max": max(times[name]), "times": times[name]} for name, _ in cmds]
    with open(out, "w") as f:
        json.dump({"results": res}, f)


def main():
    if sys.argv[1] == "serve":
        return serve(*sys.argv[2:5])
    if sys.argv[1] == "start":
        return start(*sys.argv[2:])
    work, rounds = sys.argv[1], int(sys.argv[2])
    ca, cert, key = make_certs(work)
    portfile, sock = f"{work}/net-port", f"{work}/net.sock"
    srv = subprocess.Popen([sys.executable, __file__, "serve", cert, key, portfile])
    net = None
    try:
        wait_for(portfile, "the TLS server")
        port = int(open(portfile).read())
        # sr-net's program just waits: the proxy lives as long as it does.
        net = subprocess.Popen(["sr-net", "-s", sock, "-a", f"{NAME}:{port}", "--resolve", f"{NAME}=127.0.0.1",
                                "--allow-address", "127.0.0.1", "sleep", "3600"])
        wait_for(sock, "sr-net's socket")
        ctx = ssl.create_default_context(cafile=ca)
        for _ in range(5):  # warm up both paths
            direct(ctx, port)
            proxied(ctx, port, sock)
        d, p = [], []
        for _ in range(rounds):
            t = time.perf_counter(); direct(ctx, port); d.append(time.perf_counter() - t)
            t = time.perf_counter(); proxied(ctx, port, sock); p.append(time.perf_counter() - t)
    finally:
        for proc in (net, srv):
            if proc:
                proc.terminate()
                proc.wait()
    dm, pm = statistics.median(d) * 1000, statistics.median(p) * 1000
    print(f"{rounds} GETs each way, in turn; a new connection and TLS handshake (RSA 2048, "
          "the server in Python) each:")
    print()
    print("| GET https://bench.test/ on 127.0.0.1 | median | ratio |")
    print("| --- | --- | --- |")
    print(f"| direct | {dm:.2f} ms | 1.00 |")
    print(f"| through sr-net (CONNECT on its socket) | {pm:.2f} ms | {pm / dm:.2f} |")
    with open(os.path.join(work, "net.json"), "w") as f:
        json.dump({"direct_ms": dm, "proxied_ms": pm}, f)


main()
