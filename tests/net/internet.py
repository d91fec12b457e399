#!/usr/bin/env python3
"""tests/net/internet.py - the tests' fake internet: HTTP on ADDR:80 and
HTTPS on ADDR:443 (a certificate for every name in NAMES, from the test's
CA), each answering any GET with one line, "host=HOST path=PATH sni=SNI",
what the request's Host header, path and TLS server name were; but a GET
of /files/NAME sends the file NAME of DOCROOT (a git repository served
over git's dumb HTTP protocol, say).

    internet.py ADDR CERT KEY READYFILE DOCROOT

Runs until killed; writes READYFILE when both ports listen.

The test API of sr-net's secrets (tests/38-net-secrets.t): GET /api/secret
answers 200 only when the Authorization header is "Bearer " and the value
of $SR_TEST_SECRET, else 401 saying what it got; GET /api/echo answers
with every header it got, in its body (chunked when the query says
chunked; after PAD bytes, twice, when it says pad=PAD) and Authorization
again in a header X-Echo-Authorization."""
import http.server
import socketserver
import ssl
import sys
import threading

import os
addr, cert, key, ready, docroot = sys.argv[1:6]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if self.path.startswith("/api/"):
            return self.api()
        if self.path.startswith("/files/"):
            return self.send_file(self.path[len("/files/"):].split("?")[0])
        sni = getattr(self.connection, "sr_sni", "-")
        body = ("host=%s path=%s sni=%s\n" % (self.headers.get("Host"), self.path, sni)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def api(self):
        auth = self.headers.get("Authorization", "")
        if self.path.startswith("/api/secret"):
            good = auth == "Bearer " + os.environ.get("SR_TEST_SECRET", "\0")
            body = ("authorized\n" if good else "unauthorized: got %s\n" % auth).encode()
            self.send_response(200 if good else 401)
        else:
            body = "".join("%s: %s\n" % kv for kv in self.headers.items()).encode()
            if "pad=" in self.path:     # the echo after PAD bytes, and again after
                pad = b"x" * int(self.path.split("pad=")[1].split("&")[0])
                body = pad + body + pad + body
            self.send_response(200)
            self.send_header("X-Echo-Authorization", auth)
        self.send_header("Content-Type", "text/plain")
        if "chunked" in self.path:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(0, len(body), 7):
                part = body[i:i + 7]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
            return
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send_file(self, name):
        path = os.path.realpath(os.path.join(docroot, name))
        if not path.startswith(os.path.realpath(docroot) + "/") or not os.path.isfile(path):
            self.send_error(404)
            return
        body = open(path, "rb").read()
        self.send_response(200)
        if name.endswith(".html"):      # a page of links, as pip's index
            self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve_tls():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)

    def on_sni(sock, name, _ctx):
        sock.sr_sni_name = name
    ctx.sni_callback = on_sni

    class TLSServer(Server):
        def get_request(self):
            s, a = self.socket.accept()
            t = ctx.wrap_socket(s, server_side=True, do_handshake_on_connect=False)
            try:
                t.do_handshake()
            except (ssl.SSLError, OSError):
                t.close()
                raise OSError("handshake failed")
            t.sr_sni = getattr(t, "sr_sni_name", None) or "-"
            return t, a

    return TLSServer((addr, 443), Handler)


plain = Server((addr, 80), Handler)
tls = serve_tls()
for s in (plain, tls):
    threading.Thread(target=s.serve_forever, daemon=True).start()
open(ready, "w").close()
threading.Event().wait()
