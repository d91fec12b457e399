# bench/secrets.sh - sourced by bench/rows.sh: what sr-net --secret costs.
# One HTTPS GET through the whole chain (sr-net, sr-jail --net-proxy,
# sr-exec --net, curl) to a server on the loopback of a network namespace
# of its own (port 443 wants CAP_NET_BIND_SERVICE, which unshare -c
# --keep-caps gives): with the secret swapped (sr-net ends TLS: a leaf
# made, two handshakes, the request rewritten) against the same call
# tunnelled end to end. Each figure is a median of 15 whole runs (sr-net's
# start, its per-run CA included).

secrets_section() {
	if ! have sr-net || ! have openssl || ! unshare -c -n --keep-caps true 2>/dev/null; then
		echo "(skipped: needs sr-net, openssl and a network namespace of its own)"
		return
	fi
	unshare -c -n --keep-caps bash "$SR_ROOT/bench/secrets.sh" run "$work"
}

# secrets_run DIR: inside the namespace.
secrets_run() {
	local d=$1/secrets
	mkdir -p "$d" && cd "$d" || return
	ip link set lo up
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=bench-ca -keyout ca.key -out ca.pem 2>/dev/null
	openssl req -newkey rsa:2048 -nodes -subj /CN=api.test -keyout srv.key -out srv.csr 2>/dev/null
	printf 'subjectAltName=DNS:api.test\n' >san
	openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
		-extfile san -out srv.pem 2>/dev/null
	python3 -c '
import http.server, ssl
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        b = self.headers.get("Authorization", "").encode() + b"\n"
        self.send_response(200); self.send_header("Content-Length", str(len(b))); self.end_headers()
        self.wfile.write(b)
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 443), H)
c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); c.load_cert_chain("srv.pem", "srv.key")
s.socket = c.wrap_socket(s.socket, server_side=True)
open("ready", "w").close()
s.serve_forever()' &
	local srv=$! i
	for i in $(seq 100); do [ -e ready ] && break; sleep 0.1; done
	(umask 077 && echo bench-secret-value-0123456789 >tok)
	local base=(sr-net --socket "$d/s.sock" --resolve api.test=127.0.0.1
		--allow-address 127.0.0.0/8 --allow api.test)
	local jail=(sr-jail --net-proxy "$d/s.sock" --ro-bind "$d/ca.pem" /run/ca.pem)
	python3 - "$d" "${#base[@]}" "${base[@]}" "${jail[@]}" <<'PY'
import statistics, subprocess, sys, time
d, nb = sys.argv[1], int(sys.argv[2])
base, jail = sys.argv[3:3 + nb], sys.argv[3 + nb:]
secret = ["--secret", "TOK=api.test:Authorization", "--secret-file", "TOK=%s/tok" % d,
          "--ca-file", "%s/ca.pem" % d,
          "--ca-bundle", "%s/bundle.pem" % d, "--ca-bundle-as", "/run/b.pem"]
curl = ["sr-exec", "--net", "sh", "-c", 'curl -sS --cacert "$1" -H "Authorization: Bearer $TOK" https://api.test/', "sh"]
rows = {
    "tunnelled (TLS end to end)": base + jail + curl + ["/run/ca.pem"],
    "secret swapped (TLS ended by sr-net)": base + secret + jail +
        ["--ro-bind", "%s/bundle.pem" % d, "/run/b.pem", "--keep-env", "TOK"] + curl + ["/run/b.pem"],
}
med = {}
for name, cmd in rows.items():
    ts = []
    for i in range(17):
        t = time.monotonic()
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode != 0 or "Bearer" not in out.stdout:
            print("(failed: %s)" % (out.stderr.strip()[:200] or out.stdout.strip()[:200])); sys.exit(0)
        if i >= 2: ts.append((time.monotonic() - t) * 1000)
    med[name] = statistics.median(ts)
ref = med["tunnelled (TLS end to end)"]
print("| one HTTPS GET, the whole chain | median | ratio |")
print("| --- | --- | --- |")
for name, m in med.items():
    print("| %s | %.1f ms | %.2f |" % (name, m, m / ref))
PY
	kill "$srv"
}

[ "${1-}" = run ] && { have() { command -v "$1" >/dev/null 2>&1; }; secrets_run "$2"; }
true
