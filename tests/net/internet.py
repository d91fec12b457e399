#!/usr/bin/env python3
"""tests/net/internet.py - the tests' fake internet: HTTP on ADDR:80 and
HTTPS on ADDR:443 (a certificate for every name in NAMES, from the test's
CA), each answering any GET with one line, "host=HOST path=PATH sni=SNI",
what the request's Host header, path and TLS server name were; but a GET
of /files/NAME sends the file NAME of DOCROOT (a git repository served
over git's dumb HTTP protocol, say).

    internet.py ADDR CERT KEY READYFILE DOCROOT

Runs until killed; writes READYFILE when both ports listen."""
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
        if self.path.startswith("/files/"):
            return self.send_file(self.path[len("/files/"):].split("?")[0])
        sni = getattr(self.connection, "sr_sni", "-")
        body = ("host=%s path=%s sni=%s\n" % (self.headers.get("Host"), self.path, sni)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
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
