#!/bin/bash
# sr-mcp-http refuses, with curl: no token or a wrong one (401 with
# WWW-Authenticate), a foreign Origin or Host (403: DNS rebinding), an
# unknown, closed, idle or other tenant's session (404), a body over
# --max-body (413), sessions over --tenant-sessions (the one idle longest
# ended to make room) and --max-sessions (503); and a refused request starts no sr-mcp (the
# gateway runs a wrapper that counts the starts); an Origin of another
# scheme, host or port than the server's own. Each refusal has its
# control: the same request, fault removed, is served. An idle session's
# processes are all gone; a tokens file others can read is refused at start;
# SR_MCP_TOKEN reaches no sr-mcp.
. "$(dirname "$0")/lib.sh"
need_userns
need_cmd node curl
need_not_root

http_tenants '# tenant token'
# the sr-mcp the gateway runs: the real one, each start written down
# (its pid, which is its process group) with whether it got a token.
cat >"$T/sr-mcp" <<EOF
#!/bin/sh
echo "\$\$ token:\${SR_MCP_TOKEN:+yes}" >>"$T/starts"
exec "$SR_ROOT/sr-mcp/sr-mcp" "\$@"
EOF
chmod +x "$T/sr-mcp"
: >"$T/starts"
starts() { wc -l <"$T/starts" | tr -d ' '; }

# start_gw LOG ARGS...: the gateway on a free loopback port; sets port.
start_gw() {
	local log=$1; shift
	env "${mcp_san[@]+"${mcp_san[@]}"}" "$gw" --listen 127.0.0.1:0 --state-dir "$T/state" --sr-mcp "$T/sr-mcp" "$@" 2>"$log" &
	gwpid=$!
	at_exit "kill $! 2>/dev/null"
	wait_for "sr-mcp-http listens" 20 grep -q 'listening on' "$log"
	port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\)\/mcp.*/\1/p' "$log")
}
start_gw "$T/gw.log" --tokens "$T/tokens" --max-body 8K --tenant-sessions 2 --max-sessions 2 \
	--allow-origin https://app.example
url="http://127.0.0.1:$port/mcp"
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
list='{"jsonrpc":"2.0","id":2,"method":"tools/list"}'

# post TOKEN BODY [curl args]: sets code, hdr (headers), body
post() {
	local tok=$1 data=$2; shift 2
	code=$(curl -s -o "$T/body" -D "$T/hdr" -w '%{http_code}' -X POST "$url" \
		${tok:+-H "Authorization: Bearer $tok"} -H "Content-Type: ${ct:-application/json}" \
		-H "Accept: ${acc:-application/json, text/event-stream}" "$@" --data-binary "$data")
	hdr=$(tr -d '\r' <"$T/hdr"); body=$(cat "$T/body")
}
sid() { sed -n 's/^mcp-session-id: //Ip' <<<"$hdr"; }

n0=$(starts)
post "" "$init"
is "$code" 401 "no token: 401"
like "$hdr" $'\n''WWW-Authenticate: Bearer realm="sr-mcp"' "... with WWW-Authenticate: Bearer"
like "$body" 'Authorization: Bearer TOKEN' "... and a body that says what to send"
post "${A}x" "$init"
is "$code" 401 "a wrong token: 401"
like "$hdr" 'error="invalid_token"' "... WWW-Authenticate says invalid_token"
post "${A:0:20}" "$init"
is "$code" 401 "a prefix of a token: 401"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$url" -u "alice:$A" -H 'Content-Type: application/json' --data-binary "$init")
is "$code" 401 "the token as Basic credentials: 401"
is "$(starts)" "$n0" "no refused request started an sr-mcp"
post "$A" "$init"
is "$code" 200 "control: alice's token opens a session"
s1=$(sid)
like "$s1" '^[A-Za-z0-9_-]{43}$' "... its id: 256 random bits"
is "$(starts)" $((n0 + 1)) "... one sr-mcp started for it"
post "$A" "$list" -H "Mcp-Session-Id: $s1"
is "$code" 200 "control: alice uses her session"
like "$body" '"run_code"' "... tools/list answered"

# the tenant of alice's runs is alice (sr-mcp --tenant), whatever clientInfo says
call='{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_code","arguments":{"language":"bash","code":"true"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"mallory","version":"1"}}}}'
post "$A" "$call" -H "Mcp-Session-Id: $s1" -H 'Accept: application/json'
job=$(sed -n 's/.*"job_id":"\([0-9a-f]*\)".*/\1/p' <<<"$body")
like "$(sr-queue status "$T/state/alice/spool" "$job" --json 2>&1)" '"tenant": ?"alice"[,}]' \
	"alice's run: in her spool, tenant alice (its clientInfo said mallory)"
run mcp_call "$call" env "${mcp_san[@]+"${mcp_san[@]}"}" sr-mcp --state-dir "$T/plain"
job=$(sed -n 's/.*"job_id":"\([0-9a-f]*\)".*/\1/p' <<<"$out")
like "$(sr-queue status "$T/plain/spool" "$job" --json 2>&1)" '"tenant": ?"mallory\.[0-9]+"' \
	"control: sr-mcp without --tenant takes the client's name (and its connection: NAME.PID)"

# 404: a session that is not, or not one's own
post "$A" "$list" -H "Mcp-Session-Id: x$s1"
is "$code" 404 "an unknown session: 404"
like "$body" 'initialize' "... saying to start a new one"
post "$B" "$list" -H "Mcp-Session-Id: $s1"
is "$code" 404 "bob naming alice's session: 404"
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$url" -H "Authorization: Bearer $B" -H "Mcp-Session-Id: $s1")
is "$code" 404 "bob cannot end alice's session"

# Origin and Host (DNS rebinding)
n1=$(starts)
post "$A" "$init" -H 'Origin: http://evil.example'
is "$code" 403 "a foreign Origin: 403"
like "$body" 'evil.example.*--allow-origin' "... naming the origin and the option"
post "$A" "$init" -H 'Origin: null'
is "$code" 403 "Origin null: 403"
post "$A" "$init" -H "Host: evil.example:$port"
is "$code" 403 "a foreign Host (a rebound name): 403"
post "$A" "$init" -H "Host: evil.example:$port" -H "Origin: http://evil.example:$port"
is "$code" 403 "a rebound name with its own Origin: 403"
is "$(starts)" "$n1" "... none started an sr-mcp"
post "$A" "$init" -H 'Origin: https://app.example'
is "$code" 200 "control: an --allow-origin origin is served"
like "$hdr" 'Access-Control-Allow-Origin: https://app.example' "... with CORS headers"
s2=$(sid)
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$url" -H "Authorization: Bearer $A" -H "Mcp-Session-Id: $s2")
is "$code" 200 "DELETE ends a session"
post "$A" "$list" -H "Mcp-Session-Id: $s2"
is "$code" 404 "... which is then 404"
post "$A" "$list" -H "Mcp-Session-Id: $s1" -H "Origin: http://127.0.0.1:$port"
is "$code" 200 "control: the server's own origin is served"
post "$A" "$list" -H "Mcp-Session-Id: $s1" -H "Host: localhost:$port"
is "$code" 200 "control: Host localhost on a loopback server is served"

# a request id still unanswered in the session is refused, not misrouted
post "$A" '{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"run_code","arguments":{"language":"bash","code":"sleep 3"}}}' \
	-H "Mcp-Session-Id: $s1" --max-time 1
post "$A" '{"jsonrpc":"2.0","id":"slow","method":"tools/list"}' -H "Mcp-Session-Id: $s1"
is "$code" 409 "a request id in use in the session: 409"
like "$body" 'already in use.*new id' "... saying to use a new id"

# 2026-07-28, no session: an sr-mcp for the request, gone after the answer
n3=$(starts)
post "$A" '{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' \
	-H 'Accept: application/json' -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: server/discover'
is "$code" 200 "a request without a session (2026-07-28): answered"
like "$body" '"supportedVersions"' "... by sr-mcp"
is "$(hdr_sid=$(sid); echo "${hdr_sid:-none}")" none "... without a session id"
is "$(starts)" $((n3 + 1)) "... by an sr-mcp of its own"
pg=$(tail -n 1 "$T/starts" | cut -d' ' -f1)
wait_for "... which then ends, with its process group" 10 ! pgrep -g "$pg"

# 2026-07-28's HTTP rules: a request carries its version and capabilities
# in _meta (else 400, -32602), its headers say what its body says (else
# 400, -32020), a method the server does not have is 404 (-32601), a
# version it does not speak 400 (-32022, with the versions it does); each
# refusal answers the request's id. Control: the same request, fault
# removed, is served (above). Only a request that says 2026-07-28 is held
# to them: a session's are not.
meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
# modern METHOD PARAMS [curl args]: a 2026-07-28 request, id 41; its
# headers MCP-Protocol-Version $pv and Mcp-Method $mh (unless set: what they should be)
modern() {
	local m=$1 p=$2; shift 2
	post "$A" "{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"$m\",\"params\":{$p}}" \
		-H "MCP-Protocol-Version: ${pv:-2026-07-28}" -H "Mcp-Method: ${mh:-$m}" "$@"
}
# js EXPR: EXPR of the body's message (JSON, or an event stream's data), as JSON
js() { node -e 'const t = process.argv[2], d = /^data: (.*)$/m.exec(t), m = JSON.parse(d ? d[1] : t);
	console.log(JSON.stringify(eval(process.argv[1])))' "$1" "$body" 2>/dev/null; }
err() { js '[m.id, m.error.code]'; }
n4=$(starts)
modern server/discover ''
is "$code:$(err)" '400:[41,-32602]' "no _meta: 400, -32602, the request's id"
modern server/discover '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}'
is "$code:$(err)" '400:[41,-32602]' "no client capabilities in _meta: the same"
like "$body" 'clientCapabilities.*missing' "... naming what is missing"
mh=tools/list modern server/discover "$meta"
is "$code:$(err)" '400:[41,-32020]' "Mcp-Method says another method than the body: 400, -32020"
mh=SERVER/DISCOVER modern server/discover "$meta"
is "$code:$(err)" '400:[41,-32020]' "... or the same in capitals (values are case-sensitive)"
modern tools/call "\"name\":\"run_code\",\"arguments\":{},$meta"
is "$code:$(err)" '400:[41,-32020]' "tools/call without Mcp-Name: 400, -32020"
modern tools/call "\"name\":\"run_code\",\"arguments\":{},$meta" -H 'Mcp-Name: read_file'
is "$code:$(err)" '400:[41,-32020]' "... with Mcp-Name another tool's"
like "$body" 'Mcp-Name.*read_file.*run_code' "... saying both"
pv=2025-11-25 modern server/discover "$meta"
is "$code:$(err)" '400:[41,-32020]' "MCP-Protocol-Version says another version than _meta: 400, -32020"
post "$A" "{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"server/discover\",\"params\":{$meta}}" -H 'Mcp-Method: server/discover'  # no MCP-Protocol-Version
is "$code:$(err)" '400:[41,-32020]' "... or is missing"
pv=2099-01-01 modern server/discover "$meta"
is "$code:$(err)" '400:[41,-32022]' "a version this server does not speak: 400, -32022"
is "$(js m.error.data)" '{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"2099-01-01"}' \
	"... with the versions it speaks and the one asked for"
is "$(starts)" "$n4" "none of these started an sr-mcp"
for m in initialize ping logging/setLevel resources/subscribe no/such-method; do
	modern "$m" "$meta"
	is "$code:$(err)" '404:[41,-32601]' "$m, which 2026-07-28 has not: 404, -32601"
done
modern tools/call "\"name\":\"run_code\",\"arguments\":{},$meta" -H 'Mcp-Name: run_code'
is "$code:$(js m.result.isError)" '200:true' "control: Mcp-Name run_code, as the body: served (run_code's own answer: its arguments are missing)"
modern tools/call "\"name\":\"run_code\",\"arguments\":{},$meta" -H 'Mcp-Name: =?base64?cnVuX2NvZGU=?='
is "$code:$(js m.result.isError)" '200:true' "... Mcp-Name sent Base64-encoded (=?base64?...?=): decoded, and served"
post "$A" '{"jsonrpc":"2.0","id":42,"method":"tools/list"}' -H "Mcp-Session-Id: $s1" -H 'Mcp-Method: prompts/list'
is "$code" 200 "control: a session's request (2025) is not held to them"

# every refusal with a request in its body answers that request's id
post "$A" '{"jsonrpc":"2.0","id":"r-1","method":"tools/list"}' -H "Mcp-Session-Id: nosuch"
is "$code:$(err)" '404:["r-1",-32600]' "an unknown session: 404, with the request's id"
ct=text/plain post "$A" '{"jsonrpc":"2.0","id":"r-2","method":"tools/list"}' -H "Mcp-Session-Id: $s1"
is "$code:$(err)" '415:["r-2",-32600]' "not application/json: 415, with its id"
acc=text/html post "$A" '{"jsonrpc":"2.0","id":"r-3","method":"tools/list"}' -H "Mcp-Session-Id: $s1"
is "$code:$(err)" '406:["r-3",-32600]' "an Accept without JSON or SSE: 406, with its id"
post "$A" '{"jsonrpc":"2.0","id":"r-4","method":"tools/list","params":{"x":"\ud800"}}' -H "Mcp-Session-Id: $s1"
is "$code:$(err)" '400:["r-4",-32600]' "a lone surrogate: 400, with its id"
post "$A" '{"jsonrpc":"2.0","id":"r-5","method":"initialize","params":{}}' -H "Mcp-Session-Id: $s1"
is "$code:$(err)" '400:["r-5",-32600]' "initialize in a session: 400, with its id"
post "$A" '{"jsonrpc":"2.0","id":{"no":1},"method":"tools/list"}' -H "Mcp-Session-Id: $s1"
is "$code:$(err)" '400:[null,-32600]' "control: an id that is not one (an object): null"

# body size
pad=$(head -c 8300 /dev/zero | tr '\0' ' ')
n2=$(starts)
post "$A" "${init%\}}$pad}"
is "$code" 413 "a body over --max-body: 413"
like "$body" 'larger than this server takes \(8192 bytes' "... saying the limit"
is "$(starts)" "$n2" "... and started no sr-mcp"
post "$A" "${list%\}}${pad:0:8000}}" -H "Mcp-Session-Id: $s1"
is "$code" 200 "control: a body just under it is served"
post "$A" '{"jsonrpc":' -H "Mcp-Session-Id: $s1"
is "$code" 400 "not JSON: 400"

# session limits: alice has s1; one more is her last, and fills the
# server; a third ends her session idle longest (s1) to make room
# (tests/89-mcp-http-lockout.t: more of it); bob has none to end: 503
# (s1's call "slow" answered first: a session with a request in flight is not ended)
answered() { kill -USR2 "$gwpid"; sleep 0.2; grep ': stats ' "$T/gw.log" | tail -n 1 | grep -q '"inflight":0'; }
wait_for "s1's slow call is answered" 30 answered
post "$A" "$init"; s3=$(sid)
is "$code" 200 "alice's second session"
post "$A" "$list" -H "Mcp-Session-Id: $s3"
post "$A" "$init"; s4=$(sid)
is "$code" 200 "alice's third (--tenant-sessions 2): served"
post "$A" "$list" -H "Mcp-Session-Id: $s1"
is "$code" 404 "... her session idle longest (s1) was ended to make room"
post "$A" "$list" -H "Mcp-Session-Id: $s3"
is "$code" 200 "... not the other (s3)"
post "$B" "$init"
is "$code" 503 "bob's first: 503 (--max-sessions 2, all alice's)"
like "$body" '2 MCP sessions open, the most it allows' "... saying why"
like "$hdr" 'Retry-After: ' "... with Retry-After"

# idle: a session idle past --idle-timeout ends, and every process of it
pg=$(tail -n 1 "$T/starts" | cut -d' ' -f1)
ok "bob's sr-mcp runs, its own process group" pgrep -g "$pg"
start_gw "$T/gw3.log" --tokens "$T/tokens" --idle-timeout 2s
url="http://127.0.0.1:$port/mcp"
post "$B" "$init"; b3=$(sid)
pg=$(tail -n 1 "$T/starts" | cut -d' ' -f1)
post "$B" "$list" -H "Mcp-Session-Id: $b3"
is "$code" 200 "control: a session used within --idle-timeout is served"
ok "... its sr-mcp runs, its own process group" pgrep -g "$pg"
sleep 4
post "$B" "$list" -H "Mcp-Session-Id: $b3"
is "$code" 404 "a session idle past --idle-timeout: 404"
wait_for "... and no process of its group is left" 5 ! pgrep -g "$pg"
grep -q 'yes' "$T/starts" && bad=1 || bad=0
is "$bad" 0 "no sr-mcp was given a token"

# tokens: a file others may read is refused; SR_MCP_TOKEN is one tenant
chmod 0644 "$T/tokens"
run "$gw" --listen 127.0.0.1:0 --tokens "$T/tokens" --state-dir "$T/state"
is "$rc" 111 "a tokens file others may read: exit 111"
like "$err" '^sr-mcp-http: fatal: refusing the tokens file .*mode 0644.*chmod 600' "... saying so"
chmod 0600 "$T/tokens"
run env -u SR_MCP_TOKEN "$gw" --listen 127.0.0.1:0 --state-dir "$T/state"
is "$rc" 100 "no token at all: exit 100"
like "$err" 'give --tokens FILE or set SR_MCP_TOKEN' "... saying where a token goes"
run "$gw" --token "$A"
is "$rc" 100 "no option takes a token on the command line"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/.well-known/oauth-protected-resource")
is "$code" 404 "no --authorization-server: no OAuth metadata (404)"
SR_MCP_TOKEN=$A start_gw "$T/gw2.log" --authorization-server https://auth.example --public-url https://sandbox.example
url="http://127.0.0.1:$port/mcp"
meta=$(curl -s "http://127.0.0.1:$port/.well-known/oauth-protected-resource")
like "$meta" '"resource":"https://sandbox.example/mcp","authorization_servers":\["https://auth.example"\]' \
	"--authorization-server: the protected-resource metadata names it"
post "" "$init"
like "$hdr" 'resource_metadata="https://sandbox.example/.well-known/oauth-protected-resource"' "... and a 401 points to it"
post "$A" "$init"
is "$code" 200 "SR_MCP_TOKEN: its token opens a session (tenant default)"
post "$B" "$init"
is "$code" 401 "... another token does not"
ok "... its sr-mcp has no SR_MCP_TOKEN" test "$(tail -n 1 "$T/starts" | cut -d' ' -f2)" = "token:"

# the server's own origin is exactly http://HOST:PORT as the request names it
n4=$(starts)
for o in "https://127.0.0.1:$port" "http://127.0.0.1" "http://127.0.0.1:$((port + 1))" "http://localhost:$port" \
	"http://127.0.0.1:$port/" "HTTP://127.0.0.1:$port" "http://sandbox.example"; do
	post "$A" "$init" -H "Origin: $o"
	is "$code" 403 "Origin $o on http://127.0.0.1:$port: 403"
done
is "$(starts)" "$n4" "... none started an sr-mcp"
post "$A" "$init" -H "Origin: http://127.0.0.1:$port"
is "$code" 200 "control: Origin http://127.0.0.1:$port is served"
post "$A" "$init" -H "Origin: https://sandbox.example"
is "$code" 200 "control: the origin of --public-url (https://sandbox.example) is served"
done_testing
