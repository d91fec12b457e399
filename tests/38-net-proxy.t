#!/bin/bash
# sr-net and sr-jail --net-proxy: the jail's one way out, tried against a
# fake internet of the test's own. The test runs in a network namespace it
# makes (unshare -c -n --keep-caps: the proxy's "host network"), joined by a
# veth pair to a second one holding the "internet": HTTP and HTTPS servers
# at 198.51.100.2 (tests/net/internet.py, with a CA made here), which
# answer each GET with the Host header, the path and the TLS server name
# they saw. Names reach the proxy through --resolve, never DNS. Each
# refusal has its control: the same path allowed, or taken from outside
# the jail, works.
if [ -z "${SR_NET_NS-}" ] && unshare -c -n --keep-caps true 2>/dev/null; then
	SR_NET_NS=1 exec unshare -c -n --keep-caps "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
. "$SR_ROOT/tests/net/internet.sh"
# A server on the proxy's own loopback, for the control of the address rules.
mkdir "$T/lo" && echo loopback-file >"$T/lo/f"
(cd "$T/lo" && exec python3 -m http.server 8080 --bind 127.0.0.1 >/dev/null 2>&1) &
at_exit "kill $!"
wait_for "the loopback server listens" 20 curl -s -o /dev/null http://127.0.0.1:8080/f

RES=(--resolve api.test=198.51.100.2 --resolve www.api.test=198.51.100.2
	--resolve other.test=198.51.100.2 --resolve private.test=10.1.2.3
	--resolve meta.test=169.254.169.254 --resolve home.test=127.0.0.1)
cp "$T/ca.pem" "$T/ca-in.pem"
: >"$T/req"     # a raw request, for tests/net/client.py raw (part 5)
# jailnet SR-NET-OPTIONS... -- PROGRAM...: the chain, the records in $T/net.log
# (a socket of its own each time: the last run's proxy may not have
# removed its own yet)
jailnet() {
	local o=()
	while [ "$1" != -- ]; do o+=("$1"); shift; done
	shift
	rm -f "$T/net.log"
	jn=$((${jn-0} + 1))
	run sr-net --socket "$T/net$jn.sock" --log "$T/net.log" "${RES[@]}" "${o[@]}" \
		sr-jail --net-proxy "$T/net$jn.sock" --ro-bind "$T/ca-in.pem" /run/ca.pem \
		--ro-bind "$T/req" /run/req --ro-bind "$NET/client.py" /run/client.py \
		--ro-bind "$SR_ROOT/sr-mcp/runners/node-lib/proxy.js" /run/proxy.js sr-exec --net "$@"
}
log() { cat "$T/net.log" 2>/dev/null; }

# 1. Allowed names, through each way programs use a proxy.
jailnet --allow api.test -- curl -sS http://api.test/x
is "$rc:$out" "0:host=api.test path=/x sni=-" "curl, plain HTTP through http_proxy, to an allowed host"
like "$(log)" '"host":"api.test","port":80,"via":"http","decision":"allowed","why":"allowed by --allow api.test","address":"198.51.100.2","sent":[1-9]' \
	"... recorded: allowed, which rule, the address, the bytes"
jailnet --allow api.test -- curl -sS --cacert /run/ca.pem https://api.test/y
is "$rc:$out" "0:host=api.test path=/y sni=api.test" "curl, HTTPS through CONNECT (the TLS end to end)"
jailnet --allow api.test -- python3 -c 'import ssl, urllib.request as u
print(u.urlopen("https://api.test/py", context=ssl.create_default_context(cafile="/run/ca.pem")).read().decode().strip())'
is "$rc:$out$err" "0:host=api.test path=/py sni=api.test" "python urllib, HTTPS"
jailnet --allow api.test -- curl -sS -x socks5h://127.0.0.1:3128 --cacert /run/ca.pem https://api.test/s
is "$rc:$out" "0:host=api.test path=/s sni=api.test" "curl through SOCKS5, the name resolved by the proxy"
like "$(log)" '"via":"socks","decision":"allowed"' "... recorded as socks"

jailnet --allow api.test -- wget -q -O - --ca-certificate=/run/ca.pem https://api.test/files/hello.txt
is "$rc:$out" "0:served-file" "wget, HTTPS through the proxy"
jailnet --allow api.test -- sh -c 'cd /tmp && git -c http.sslCAInfo=/run/ca.pem clone -q https://api.test/files/repo.git r && cat r/README'
is "$rc:$out" "0:from-the-repo" "git clone over HTTPS through the proxy"
if /usr/bin/python3 -c 'import requests' 2>/dev/null; then
	jailnet --allow api.test -- /usr/bin/python3 -c 'import requests
print(requests.get("https://api.test/rq", verify="/run/ca.pem").text.strip())'
	is "$rc:$out" "0:host=api.test path=/rq sni=api.test" "python requests, HTTPS through the proxy"
else
	skip "python requests through the proxy" "no python3-requests here"
fi
if /usr/bin/python3 -c 'import httpx' 2>/dev/null; then
	jailnet --allow api.test -- /usr/bin/python3 -c 'import httpx
print(httpx.get("https://api.test/hx", verify="/run/ca.pem").text.strip())'
	is "$rc:$out" "0:host=api.test path=/hx sni=api.test" "python httpx, HTTPS through the proxy"
	jailnet --allow api.test -- /usr/bin/python3 -c 'import httpx
try:
    httpx.get("https://other.test/", verify="/run/ca.pem")
except httpx.ProxyError as e:
    print("refused:", e)'
	like "$out" "refused: 403 Forbidden" "python httpx to a host not allowed: the proxy's 403"
else
	skip "python httpx through the proxy" "no python3-httpx here"
fi

# Node 20 (its fetch and https.get ignore the variables): the runners'
# preload sr-mcp/runners/node-lib/proxy.js; the control, Node without it.
if command -v node >/dev/null; then
	nodejs() { jailnet --allow api.test -- env NODE_EXTRA_CA_CERTS=/run/ca.pem node "$@"; }
	fetch='fetch(process.argv[1]).then(async (r) => console.log(r.status, (await r.text()).trim()),
		(e) => console.log("failed:", String(e.cause || e)))'
	nodejs -r /run/proxy.js -e "$fetch" https://api.test/nf
	is "$rc:$out" "0:200 host=api.test path=/nf sni=api.test" "node fetch, HTTPS through the proxy (the preload)"
	nodejs -r /run/proxy.js -e "$fetch" http://api.test/nh
	is "$rc:$out" "0:200 host=api.test path=/nh sni=-" "node fetch, plain HTTP through the proxy"
	nodejs -r /run/proxy.js -e "$fetch" https://other.test/
	like "$out" "^failed: .*the proxy refused other.test:443: 403 .*not in the allow list" \
		"node fetch to a host not allowed: refused, the proxy's reason in the error"
	nodejs -e "$fetch" https://api.test/nf
	like "$out" "^failed: " "the control: node fetch without the preload reaches nothing"
	nodejs -r /run/proxy.js -e 'require("https").get(process.argv[1], (r) => r.pipe(process.stdout))' \
		https://api.test/ng
	is "$rc:$out" "0:host=api.test path=/ng sni=api.test" "node https.get through the proxy"
	nodejs -r /run/proxy.js -e 'fetch(process.argv[1], { method: "POST", body: "x".repeat(70000) })
		.then(async (r) => console.log(r.status, (await r.text()).length > 0))' https://api.test/post
	like "$rc:$out" "^0:[0-9]+ (true|false)" "node fetch POSTs a body through the proxy"
	jailnet --allow api.test -- env NO_PROXY=api.test no_proxy=api.test node -r /run/proxy.js -e "$fetch" http://api.test/np
	like "$out" "^failed: " "NO_PROXY: a host it names is not proxied (and so not reached)"
	# The javascript runner as sr-mcp --network allow starts it: the
	# preload is on (SR_NET_ARGS), the code's fetch goes through.
	mkdir -p "$T/jsws"
	printf '%s\n' "$fetch" >"$T/main.js"
	sed 's/process.argv\[1\]/"https:\/\/api.test\/runner"/' "$T/main.js" >"$T/main-runner.js"
	jn=$((jn + 1))
	run env SR_NET_ARGS="--socket $T/net$jn.sock --log $T/net.log ${RES[*]} --allow api.test" \
		SR_JAIL_ARGS="--net-proxy $T/net$jn.sock --ro-bind $T/ca-in.pem /run/ca.pem --setenv NODE_EXTRA_CA_CERTS /run/ca.pem" \
		SR_EXEC_ARGS=--net SR_CODE="$T/main-runner.js" SR_WORKSPACE="$T/jsws" \
		"$SR_ROOT/sr-mcp/runners/javascript"
	is "$rc:$out" "0:200 host=api.test path=/runner sni=api.test" "the javascript runner's fetch goes through the proxy"
	if [ -x "$SR_ROOT/sr-mcp/runners/typescript" ] && "$SR_ROOT/sr-mcp/runners/typescript" --version >/dev/null 2>&1; then
		printf 'const r: string = await fetch("https://other.test/").then((x) => String(x.status),\n%s\n' \
			'  (e) => "failed: " + String(e.cause || e));console.log(r);' >"$T/main.ts"
		jn=$((jn + 1))
		run env SR_NET_ARGS="--socket $T/net$jn.sock --log $T/net.log ${RES[*]} --allow api.test" \
			SR_JAIL_ARGS="--net-proxy $T/net$jn.sock" SR_EXEC_ARGS=--net SR_CODE="$T/main.ts" \
			SR_WORKSPACE="$T/jsws" "$SR_ROOT/sr-mcp/runners/typescript"
		like "$rc:$out" "^0:failed: .*the proxy refused other.test:443: 403 .*not in the allow list" \
			"the typescript runner's fetch goes to the proxy too (a host not allowed: its reason)"
	else
		skip "the typescript runner through the proxy" "no TypeScript compiler here"
	fi
else
	skip "node fetch through the proxy" "no node here"
fi

# pip from an index the fake internet serves (a page of links to a wheel
# made here); the control, the same index on a host not allowed.
if /usr/bin/python3 -m pip --version >/dev/null 2>&1; then
	/usr/bin/python3 - "$T/www/tinypkg-1.0-py3-none-any.whl" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("tinypkg.py", "WHO = 'tinypkg through the proxy'\n")
    z.writestr("tinypkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n")
    z.writestr("tinypkg-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: sr-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr("tinypkg-1.0.dist-info/RECORD", "")
PY
	echo '<a href="tinypkg-1.0-py3-none-any.whl">tinypkg-1.0-py3-none-any.whl</a>' >"$T/www/links.html"
	pipin() {
		jailnet --allow api.test -- /usr/bin/python3 -m pip install -q --disable-pip-version-check \
			--no-cache-dir --no-index --cert /run/ca.pem --target /tmp/t --find-links "$1" tinypkg
	}
	pipin https://api.test/files/links.html
	is "$rc:$(printf %s "$err" | tail -n 3)" "0:" "pip installs from an index through the proxy"
	like "$(log)" '"host":"api.test","port":443,"via":"connect","decision":"allowed"' "... recorded"
	pipin https://other.test/files/links.html
	nok "pip from an index on a host not allowed: refused" test "$rc" = 0
	like "$(log)" '"host":"other.test","port":443,"via":"connect","decision":"denied","why":"other.test port 443 is not in the allow list"' "... recorded, saying why"
else
	skip "pip through the proxy" "no pip here"
fi

# 2. Names not allowed: refused, saying why, never silently.
jailnet --allow api.test -- curl -sS http://other.test/
is "$rc:$out" "0:sr-net: refused other.test:80: other.test port 80 is not in the allow list" \
	"a host not in the allow list: 403, its body says why"
like "$(log)" '"host":"other.test","port":80,"via":"http","decision":"denied","why":"other.test port 80 is not in the allow list"' \
	"... and the record says so"
jailnet --allow api.test -- python3 /run/client.py connect other.test 443
is "$out" "HTTP/1.1 403 Forbidden
sr-net: refused other.test:443: other.test port 443 is not in the allow list" "CONNECT to a host not allowed: 403 with the reason"
jailnet --allow other.test:80 -- python3 /run/client.py connect other.test 443
like "$out" "^HTTP/1.1 403" "a host allowed on port 80 only: 443 refused"
jailnet --allow other.test:80 -- curl -sS http://other.test/p
is "$out" "host=other.test path=/p sni=-" "... and its port 80 allowed (the control)"
jailnet --allow '*.api.test' --allow api.test --deny www.api.test -- curl -sS http://www.api.test/
is "$out" "sr-net: refused www.api.test:80: denied by --deny www.api.test" "a deny wins over a wildcard allow"
jailnet --allow '*.api.test' -- curl -sS http://api.test/
like "$out" "not in the allow list" "*.api.test does not match api.test itself"
jailnet --allow '*.api.test' -- curl -sS http://www.api.test/w
is "$out" "host=www.api.test path=/w sni=-" "... but matches www.api.test (the control)"
jailnet --allow api.test -- python3 /run/client.py socks 1 other.test 80
is "$out" "reply 2" "SOCKS5 to a host not allowed: reply 2 (not allowed by the rules)"

# 3. Addresses: with every name allowed, the address classes still hold.
for a in 127.0.0.1 '[::1]' '[::ffff:127.0.0.1]' 169.254.169.254 10.0.0.1 172.16.5.4 \
	192.168.1.1 100.64.0.1 0.0.0.0 224.0.0.1 2130706433 0x7f.1 017700000001 198.51.100.1 \
	'[fe80::1]' '[fd00::1]' '[::]' '[64:ff9b::a00:1]' '[2002:a00:1::]'; do
	jailnet --allow '*:80,8080' -- python3 /run/client.py connect "$a" 80
	like "$(echo $out)" "^HTTP/1.1 403 Forbidden.*sr-net: refused .*(loopback|private|link-local|unspecified|multicast|shared|address of this host)" \
		"CONNECT $a:80 (every name allowed): refused by its address class"
done
for n in private.test meta.test home.test; do
	jailnet --allow '*' -- python3 /run/client.py connect $n 80
	like "$out" "sr-net: refused $n:80: $n resolves to [0-9.]+, (private|link-local|loopback)" \
		"$n, a name that resolves to a refused address: refused, naming it"
done
jailnet --allow home.test:8080 --allow-address 127.0.0.0/8 -- curl -sS http://home.test:8080/f
is "$out" "loopback-file" "the control: with --allow-address 127.0.0.0/8, the loopback server is reached"
jailnet --allow '*' -- python3 /run/client.py socks 1 127.0.0.1 8080
is "$out" "reply 2" "SOCKS5 to 127.0.0.1: refused"

# 4. The TLS server name must be the host asked for.
jailnet --allow api.test --allow other.test -- python3 /run/client.py connect api.test 443 other.test /run/ca.pem
is "$out" "HTTP/1.1 200 Connection established
closed" "CONNECT api.test:443 with the server name other.test: closed before the server sees it"
like "$(log)" "the TLS server name 'other.test' is not the host asked for, api.test" "... recorded with the reason"
jailnet --allow api.test --allow other.test -- python3 /run/client.py connect api.test 443 api.test /run/ca.pem
is "$out" "HTTP/1.1 200 Connection established
host=api.test path=/t sni=api.test" "the control: the same tunnel with the server name api.test works"

# 5. Requests the proxy will not pass on.
req() { printf "$1" >"$T/req"; jailnet --allow api.test -- sh -c 'python3 /run/client.py raw </run/req'; }
req 'GET http://api.test/h HTTP/1.1\r\nHost: evil.test\r\n\r\n'
is "$(printf '%s\n' "$out" | tail -1)" "host=api.test path=/h sni=-" "a Host header naming another site is replaced by the host judged"
req 'GET http://api.test/ HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n'
like "$out" "^HTTP/1.1 400" "Content-Length and Transfer-Encoding both: 400"
req 'GET http://api.test/ HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n'
like "$out" "^HTTP/1.1 400" "Content-Length twice: 400"
req 'GET http://api.test/ HTTP/1.1\r\nX-A: 1\r\n folded\r\n\r\n'
like "$out" "^HTTP/1.1 400" "a folded header line: 400"
req 'GET /relative HTTP/1.1\r\nHost: api.test\r\n\r\n'
like "$out" "^HTTP/1.1 400" "a request not in absolute form: 400"
req 'GET http://user@api.test/ HTTP/1.1\r\n\r\n'
like "$out" "^HTTP/1.1 400" "a target with a user part: 400"
req 'GET https://api.test/ HTTP/1.1\r\n\r\n'
like "$out" "^HTTP/1.1 400" "an https:// target without CONNECT: 400"
python3 -c 'import sys; sys.stdout.write("GET http://api.test/ HTTP/1.1\r\nX-Big: " + "a" * 20000 + "\r\n\r\n")' >"$T/req"
jailnet --allow api.test -- sh -c 'python3 /run/client.py raw </run/req'
like "$out" "^HTTP/1.1 431" "a head over 16 KiB: 431"
jailnet --allow api.test -- python3 /run/client.py socks 3 api.test 80
is "$out" "reply 7" "SOCKS5 UDP ASSOCIATE: reply 7 (only CONNECT)"
jailnet --allow api.test -- python3 /run/client.py socks 2 api.test 80
is "$out" "reply 7" "SOCKS5 BIND: reply 7"

# 6. Bounds.
jailnet --allow api.test --max-connections 2 -- python3 /run/client.py hold 3
is "$out" "HTTP/1.1 200 Connection established
HTTP/1.1 200 Connection established
HTTP/1.1 503 Service Unavailable" "--max-connections 2: the third at once is refused with 503"
like "$(log)" "more connections at once than --max-connections allows" "... and recorded"
jailnet --allow api.test --max-bytes 100 -- curl -sS http://api.test/a http://api.test/b http://api.test/c
like "$(log)" "cut at the run's --max-bytes" "--max-bytes 100: the connections past it are cut, saying so"

# 7. No other way out of the jail; the control from the proxy's side.
jailnet --allow api.test -- curl -sS --noproxy '*' --max-time 10 http://198.51.100.2/
nok "a program that ignores the proxy reaches nothing (TCP)" test "$rc" = 0
like "$err" "(Network is unreachable|Failed to connect|Could not connect)" "... no route, said plainly"
jailnet --allow api.test -- python3 -c 'import socket
try:
    socket.create_connection(("198.51.100.2", 443), timeout=10); print("connected")
except OSError as e:
    print("tcp:", e.strerror)'
is "$out" "tcp: Network is unreachable" "a raw TCP connect to the server's address: no route, said plainly"
run curl -sS --max-time 10 http://198.51.100.2/direct
is "$out" "host=198.51.100.2 path=/direct sni=-" "the control: outside the jail the server is there"
jailnet --allow api.test -- python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.sendto(b"x", ("198.51.100.2", 53)); print("sent")
except OSError as e:
    print("udp:", e.strerror)'
is "$out" "udp: Network is unreachable" "UDP from the jail: no route"
jailnet --allow api.test -- python3 -c 'import socket
try:
    print(socket.getaddrinfo("api.test", 80))
except OSError as e:
    print("dns: refused")'
is "$out" "dns: refused" "DNS from the jail: nothing answers (names are the proxy's to resolve)"

# 8. Another run's socket is not in this jail; the proxy ends with the run.
sr-net --socket "$T/a.sock" --allow api.test sleep 30 &
other=$!
wait_for "another run's proxy socket is made" 20 test -S "$T/a.sock"
jailnet --allow api.test -- sh -c "test -e '$T/a.sock' && echo visible || echo absent"
is "$out" "absent" "another run's socket is nowhere in the jail"
kill $other
wait "$other" 2>/dev/null
wait_for "that run's proxy removes its socket" 20 test ! -e "$T/a.sock"
jailnet --allow api.test -- true
wait_for "the socket is gone once the run ends" 20 test ! -e "$T/net$jn.sock"
ok "and no proxy is left" sh -c "! pgrep -f '[s]r-net --socket $T/net$jn.sock' >/dev/null"
# A socket left by a proxy killed at once with its run (sr-limit's cgroup
# kill): the next run at that path takes it over; a live one is not taken.
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$T/stale.sock"
run sr-net --socket "$T/stale.sock" --allow api.test true
is "$rc" 0 "a stale socket (nobody listening) at --socket is replaced"
sr-net --socket "$T/live.sock" --allow api.test sleep 30 &
live=$!
wait_for "a live proxy's socket is made" 20 test -S "$T/live.sock"
run sr-net --socket "$T/live.sock" --allow api.test true
like "$rc:$err" "^111:sr-net: fatal: cannot make the socket" "a live proxy's socket is not taken: 111"
kill $live; wait $live 2>/dev/null

# 9. The command line.
run sr-net --allow api.test true
is "$rc" 100 "no --socket: 100"
like "$err" "^sr-net: usage: --socket PATH is needed" "... saying what is needed"
run sr-net --socket "$T/x.sock" --allow 'bad host' true
is "$rc:$err" "100:sr-net: usage: --allow: invalid host: 'bad host' (want NAME, *.NAME, * or an address, then :PORT[,PORT...] if not 80,443)" \
	"a malformed rule: 100, the one wording"
run sr-net --socket "$T/x.sock" --allow api.test:0 true
is "$rc" 100 "port 0: 100"
# An empty port in the list (a trailing comma, a leading one, two in a row)
# is refused with the rule's wording; the control: the same list without it
# is accepted (--check judges the rules and runs nothing).
for bad in 'api.test:443,' 'api.test:,443' 'api.test:80,,443' 'api.test:' '[::1]:443,'; do
	run sr-net --check --allow "$bad"
	is "$rc:$err" "100:sr-net: usage: --allow: invalid host: '$bad' (want NAME, *.NAME, * or an address, then :PORT[,PORT...] if not 80,443)" \
		"an empty port in '$bad': 100, the rule's wording"
done
run sr-net --check --deny 'api.test:22,'
is "$rc" 100 "... and in a --deny: 100"
run sr-net --check --allow 'api.test:443' --allow 'api.test:80,443' --allow '[::1]:443'
is "$rc:$err" "0:" "the control: the same rules without the empty port are accepted"
: >"$T/exists"
run sr-net --socket "$T/exists" true
like "$rc:$err" "^111:sr-net: fatal: cannot make the socket" "an existing file at --socket is not replaced: 111"
run sr-jail --share-net --net-proxy "$T/x.sock" true
is "$rc" 100 "sr-jail --net-proxy with --share-net: 100"
done_testing
