#!/bin/bash
# sr-net --secret: the program in the jail holds a placeholder, sr-net
# ends TLS for the secret's host with a per-run CA and swaps the value into
# the one header on the way out, against the fake internet of
# tests/net/internet.sh whose test API (/api/secret) answers 200 only to
# the real value and (/api/echo) echoes the headers it got. Each claim has
# its control: the API does take the value and does echo it, the dump
# that looks for it in the jail does find it when it is there.
if [ -z "${SR_NET_NS-}" ] && unshare -c -n --keep-caps true 2>/dev/null; then
	SR_NET_NS=1 exec unshare -c -n --keep-caps "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
REAL=sk-real-$(od -An -tx1 -N12 /dev/urandom | tr -d ' \n')
export SR_TEST_SECRET=$REAL     # what the test API takes
. "$SR_ROOT/tests/net/internet.sh"
(umask 077 && printf '%s\n' "$REAL" >"$T/tok")
RES=(--resolve api.test=198.51.100.2 --resolve other.test=198.51.100.2)
KEEP=(--keep-env API_TOKEN --keep-env SSL_CERT_FILE --keep-env REQUESTS_CA_BUNDLE
	--keep-env NODE_EXTRA_CA_CERTS --keep-env CURL_CA_BUNDLE --keep-env PIP_CERT)
# jailsec SR-NET-OPTIONS... -- PROGRAM...: the chain with the secret
# API_TOKEN for api.test, the records in $T/net.log.
jailsec() {
	local o=()
	while [ "$1" != -- ]; do o+=("$1"); shift; done
	shift
	rm -f "$T/net.log"
	jn=$((${jn-0} + 1))
	run sr-net --socket "$T/net$jn.sock" --log "$T/net.log" "${RES[@]}" --allow other.test \
		--secret API_TOKEN=api.test:Authorization --ca-file "$T/ca.pem" \
		--ca-bundle "$T/bundle$jn.pem" --ca-bundle-as /run/sr-ca.pem "${o[@]}" \
		sr-jail --net-proxy "$T/net$jn.sock" --ro-bind "$T/bundle$jn.pem" /run/sr-ca.pem \
		--ro-bind "$T/ca.pem" /run/ca.pem "${KEEP[@]}" sr-exec --net "$@"
}
log() { cat "$T/net.log" 2>/dev/null; }
F=(--secret-file "API_TOKEN=$T/tok")
outside() { curl -sS --resolve api.test:443:198.51.100.2 --cacert "$T/ca.pem" "$@"; }

# 0. The controls: the API takes the real value and nothing else, and echoes.
is "$(outside -H "Authorization: Bearer $REAL" https://api.test/api/secret)" "authorized" \
	"the control: outside, the real value is authorized"
like "$(outside -H "Authorization: Bearer srph_guess" https://api.test/api/secret)" "^unauthorized" \
	"... and another value is not"
like "$(outside -H "Authorization: Bearer $REAL" https://api.test/api/echo)" "Authorization: Bearer $REAL" \
	"... and /api/echo sends the header back"

# 1. Clients in the jail get 200 with the placeholder.
jailsec "${F[@]}" -- sh -c 'curl -sS -H "Authorization: Bearer $API_TOKEN" https://api.test/api/secret'
is "$rc:$out" "0:authorized" "curl with the placeholder: authorized (sr-net swapped the value in)"
like "$(log)" '"host":"api.test","port":443,"via":"connect","decision":"allowed","why":"allowed by --allow api.test:443; TLS ended here: secret API_TOKEN swapped into 1 of 1 requests"' \
	"... the record names the secret, not its value"
unlike "$(log)" "$REAL" "... and the value is nowhere in the record"
jailsec "${F[@]}" -- sh -c 'curl -sS --http2 -H "Authorization: Bearer $API_TOKEN" https://api.test/api/secret'
is "$rc:$out" "0:authorized" "curl asking for HTTP/2: ALPN gives http/1.1, authorized"
if /usr/bin/python3 -c 'import requests' 2>/dev/null; then
	jailsec "${F[@]}" -- /usr/bin/python3 -c 'import os, requests
s = requests.Session()
h = {"Authorization": "Bearer " + os.environ["API_TOKEN"]}
for p in ("secret", "secret?2", "secret?3"):
    r = s.get("https://api.test/api/" + p, headers=h)
    print(r.status_code, r.text.strip())'
	is "$rc:$out" "0:200 authorized
200 authorized
200 authorized" "python requests, three calls on one kept-alive connection: each authorized"
	like "$(log)" "swapped into 3 of 3 requests" "... one connection, three requests swapped"
else
	skip "python requests" "no python3-requests here"
fi
js=$(cat <<'JS'
// Node 20's fetch ignores the proxy variables: a CONNECT of its own.
const http = require("http"), https = require("https"), tls = require("tls");
const r = http.request({ host: "127.0.0.1", port: 3128, method: "CONNECT", path: "api.test:443" });
r.on("connect", (res, sock) => {
	https.get({ host: "api.test", path: "/api/secret",
		headers: { Authorization: "Bearer " + process.env.API_TOKEN },
		createConnection: () => tls.connect({ socket: sock, servername: "api.test" }) }, (res2) => {
		let b = "";
		res2.on("data", (d) => (b += d));
		res2.on("end", () => { console.log(res2.statusCode, b.trim()); process.exit(0); });
	}).on("error", (e) => { console.log("error", e.message); process.exit(1); });
});
r.end();
JS
)
if command -v node >/dev/null; then
	jailsec "${F[@]}" -- node -e "$js"
	is "$rc:$out" "0:200 authorized" "node https through CONNECT, NODE_EXTRA_CA_CERTS: authorized"
	# Node's own fetch, with sr-mcp's preload that takes it through the proxy
	# (its text ahead of the code: the jail does not see the test's tree).
	fetch=$(cat "$SR_ROOT/sr-mcp/runners/node-lib/proxy.js"; echo ';
fetch("https://api.test/api/" + process.argv[1], { headers: { Authorization: "Bearer " + process.env.API_TOKEN } })
	.then(async (r) => console.log(r.status, (await r.text()).trim()), (e) => console.log("error", e.message))')
	jailsec "${F[@]}" -- node -e "$fetch" secret
	is "$rc:$out" "0:200 authorized" "node fetch with the preload, NODE_EXTRA_CA_CERTS: authorized"
	jailsec "${F[@]}" -- node -e "$fetch" echo
	like "$out" "Authorization: Bearer srph_[0-9a-f]{32}" "... its echo comes back with the placeholder"
	unlike "$out" "$REAL" "... not the value"
	jailsec "${F[@]}" -- sh -c 'NODE_EXTRA_CA_CERTS= exec node -e "$0" secret' "$fetch"
	like "$out" "^error " "the control: without NODE_EXTRA_CA_CERTS the run's CA is not trusted, fetch fails"
else
	skip "node" "node is not installed"
fi

# 2. The placeholder is useless elsewhere, and a guess is not swapped.
jailsec "${F[@]}" -- sh -c 'curl -sS --cacert /run/ca.pem -H "Authorization: Bearer $API_TOKEN" https://other.test/api/echo; echo "ph=$API_TOKEN"'
ph=$(printf '%s\n' "$out" | sed -n 's/^ph=//p')
like "$ph" '^srph_[0-9a-f]{32}$' "the program's API_TOKEN is a placeholder"
like "$out" "Authorization: Bearer $ph" "to another allowed host the placeholder goes out unchanged"
unlike "$out" "$REAL" "... not the value"
like "$(log)" '"host":"other.test","port":443,"via":"connect","decision":"allowed","why":"allowed by --allow other.test",' \
	"... that host is tunnelled end to end (no TLS ended)"
jailsec "${F[@]}" -- sh -c 'curl -sS -H "Authorization: Bearer srph_0123456789abcdef0123456789abcdef" https://api.test/api/secret'
like "$out" "^unauthorized: got Bearer srph_0123" "a guessed placeholder is not swapped"
jailsec "${F[@]}" -- sh -c 'curl -sS -H "X-Other: $API_TOKEN" https://api.test/api/echo'
like "$out" "X-Other: srph_" "the placeholder in another header than the secret's is left as it is"

# 3. Echoes come back with the value replaced by the placeholder.
for q in echo 'echo?chunked'; do
	jailsec "${F[@]}" -- sh -c "curl -sS -D - -H \"Authorization: Bearer \$API_TOKEN\" 'https://api.test/api/$q'; echo ph=\$API_TOKEN"
	ph=$(printf '%s\n' "$out" | sed -n 's/^ph=//p')
	like "$out" "Authorization: Bearer $ph" "/api/$q: the body's echo holds the placeholder"
	like "$out" "X-Echo-Authorization: Bearer $ph" "... and so does the response header"
	unlike "$out" "$REAL" "... the value is nowhere in what the program got"
done

# Bodies longer than sr-net's buffers, the value across their edges.
for pad in 2030 16370 70000; do
	for q in "pad=$pad" "pad=$pad&chunked"; do
		jailsec "${F[@]}" -- sh -c "curl -sS -H \"Authorization: Bearer \$API_TOKEN\" 'https://api.test/api/echo?$q' | tr -d x | grep -c '^Authorization: Bearer srph_'"
		is "$out" 2 "/api/echo?$q: both echoes come back redacted"
	done
done
jailsec "${F[@]}" -- sh -c "curl -sS -H \"Authorization: Bearer \$API_TOKEN\" 'https://api.test/api/echo?pad=70000' | wc -c"
is "$out" "$(outside -H "Authorization: Bearer $REAL" 'https://api.test/api/echo?pad=70000' |
	sed "s/$REAL/srph_0123456789abcdef0123456789abcdef/" | wc -c)" "... the body's length is the echo's, with the placeholder for the value"

# 4. The value is nowhere the program can look: env, /proc, files.
dump='env; cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null | tr "\0" "\n"; grep -rsh "" /run /tmp /etc/ssl 2>/dev/null | head -c 10000000'
SR_SECRET_API_TOKEN=$REAL jailsec -- sh -c "$dump"
is "$rc" 0 "the jail's env, /proc and files dumped (the value from sr-net's environment)"
unlike "$out" "$REAL" "... the value is not among them"
unlike "$out" "SR_SECRET_API_TOKEN" "... nor the variable that held it"
like "$out" "API_TOKEN=srph_" "... the placeholder is"
run env SR_SECRET_API_TOKEN="$REAL" sr-jail --keep-env SR_SECRET_API_TOKEN sr-exec sh -c "$dump"
like "$out" "$REAL" "the control: passed as a plain variable, the same dump finds the value"
jailsec "${F[@]}" -- sh -c "$dump"
unlike "$out" "$REAL" "with --secret-file: the value is not in the jail either"
nok "the bundle holds no private key" grep -q "PRIVATE KEY" "$T/bundle$jn.pem"
is "$(grep -c 'BEGIN CERTIFICATE' "$T/bundle$jn.pem")" \
	"$(($(grep -c 'BEGIN CERTIFICATE' /etc/ssl/certs/ca-certificates.crt 2>/dev/null || echo 0) + 1))" \
	"the bundle: the host's CAs and the run's CA"
openssl x509 -in <(awk '/BEGIN CERT/{c=""} {c=c $0 "\n"} END{printf "%s", c}' "$T/bundle$jn.pem") \
	-noout -text >"$T/ca.txt" 2>&1
like "$(grep -A2 'Name Constraints: critical' "$T/ca.txt" | tr -d ' \n')" '^X509v3NameConstraints:criticalPermitted:DNS:api.test$' \
	"the run's CA may vouch for api.test alone (name constraints)"

# 5. An upstream the host does not trust is refused, saying why.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=not-the-ca \
	-keyout "$T/other.key" -out "$T/other-ca.pem" 2>/dev/null
jailsec "${F[@]}" --ca-file "$T/other-ca.pem" -- sh -c 'curl -sS -H "Authorization: Bearer $API_TOKEN" https://api.test/api/secret'
like "$err" "(502|CONNECT tunnel failed)" "an upstream certificate not trusted: the program gets a 502"
like "$(log)" '"decision":"denied","why":"the server api.test:443 is not trusted: unable to get local issuer certificate"' \
	"... the record says why (the control: section 1, the right CA)"

# 6. Requests that could smuggle a second one are not passed on.
py=$(cat <<'PY'
import os, socket, ssl
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"CONNECT api.test:443 HTTP/1.1\r\n\r\n")
assert s.recv(4096).startswith(b"HTTP/1.1 200")
t = ssl.create_default_context().wrap_socket(s, server_hostname="api.test")
t.sendall(b"POST /api/secret HTTP/1.1\r\nHost: api.test\r\nContent-Length: 3\r\n"
          b"Transfer-Encoding: chunked\r\nAuthorization: Bearer " + os.environ["API_TOKEN"].encode() + b"\r\n\r\n0\r\n\r\n")
print("answer:", t.recv(4096)[:12])
PY
)
jailsec "${F[@]}" -- python3 -c "$py"
is "$out" "answer: b''" "Content-Length and Transfer-Encoding both: closed unanswered"
like "$(log)" "a malformed or cut message ended the connection" "... recorded"

# 7. The command line.
run sr-net --socket "$T/x.sock" --secret API_TOKEN=api.test:Authorization true
like "$rc:$err" "^100:sr-net: usage: secret API_TOKEN has no value" "a secret without a value: 100"
chmod 644 "$T/tok"
run sr-net --socket "$T/x.sock" --secret API_TOKEN=api.test:Authorization "${F[@]}" true
like "$rc:$err" "^111:sr-net: fatal: --secret-file: .* is not a regular file of mode 600" "a secret file others may read: 111"
chmod 600 "$T/tok"
run sr-net --socket "$T/x.sock" --secret API_TOKEN=10.0.0.1:Authorization true
is "$rc" 100 "a secret for an address, not a name: 100"
run sr-net --socket "$T/x.sock" --ca-bundle "$T/b.pem" true
is "$rc" 100 "--ca-bundle without a --secret: 100"

# 8. The TLS half: sr-net itself loads no OpenSSL; a --secret runs
# sr-net-tls from sr-net's own directory, and where that is missing the
# secret is refused (111), never served without TLS ended. The control:
# the same copy with sr-net-tls beside it accepts the secret.
if command -v ldd >/dev/null; then
	unlike "$(ldd "$SR_ROOT/sr-net/sr-net")" "libssl|libcrypto" "sr-net loads neither libssl nor libcrypto"
	like "$(ldd "$SR_ROOT/sr-net/sr-net-tls")" "libssl" "... sr-net-tls does"
else
	skip "sr-net loads no OpenSSL" "no ldd here to list what it loads"
fi
mkdir -p "$T/lone" "$T/both"
cp "$SR_ROOT/sr-net/sr-net" "$T/lone/"
cp "$SR_ROOT/sr-net/sr-net" "$SR_ROOT/sr-net/sr-net-tls" "$T/both/"
run "$T/lone/sr-net" --check --allow api.test
is "$rc:$err" "0:" "without sr-net-tls, sr-net without a secret still works"
# the value from a file, and from sr-net's environment
export SR_SECRET_API_TOKEN=lone-value-0123456789
for opt in "--secret API_TOKEN=api.test:Authorization ${F[*]}" "--allow other.test --secret API_TOKEN=api.test:Authorization"; do
	# shellcheck disable=SC2086 # the words of $opt are options
	run "$T/lone/sr-net" --socket "$T/lone.sock" --allow api.test $opt touch "$T/lone-ran"
	like "$rc:$err" "^111:sr-net: fatal: --secret needs $T/lone/sr-net-tls" "'$opt' without sr-net-tls: 111, saying what is missing"
	ok "... and no program run, no socket made" test ! -e "$T/lone-ran" -a ! -e "$T/lone.sock"
	# shellcheck disable=SC2086
	run "$T/both/sr-net" --check --allow api.test $opt
	is "$rc:$err" "0:" "the control: with sr-net-tls beside it, the same is accepted"
done
unset SR_SECRET_API_TOKEN
done_testing
