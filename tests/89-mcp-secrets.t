#!/bin/bash
# sr-mcp --secret NAME=HOST:HEADER under --network allow: a run's code holds
# a placeholder, sr-net swaps the value in for HOST (sr-net's own checks:
# tests/38-net-secrets.t); sandbox_info lists names and hosts, never values;
# the value is in no result, log, export or job file. Against the fake
# internet of tests/net/internet.sh, its names in an /etc/hosts of the
# test's own mount namespace (sr-mcp gives sr-net no --resolve).
if [ -z "${SR_NET_NS-}" ] && unshare -c -n -m --keep-caps true 2>/dev/null; then
	SR_NET_NS=1 exec unshare -c -n -m --keep-caps "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
REAL=sk-real-$(od -An -tx1 -N12 /dev/urandom | tr -d ' \n')
export SR_TEST_SECRET=$REAL
. "$SR_ROOT/tests/net/internet.sh"
{ cat /etc/hosts; echo '198.51.100.2 api.test other.test'; } >"$T/hosts"
mount --bind "$T/hosts" /etc/hosts 2>/dev/null || skip_all "cannot bind an /etc/hosts of the test's own"
(umask 077 && printf '%s\n' "$REAL" >"$T/tok")
# The fake internet's CA stands for the public trust: sr-net reads
# SSL_CERT_FILE for the bundle, and its --ca-file is not sr-mcp's to give,
# so the host's store is this CA (OpenSSL's default file, bound).
cat /etc/ssl/certs/ca-certificates.crt "$T/ca.pem" >"$T/trust.pem" 2>/dev/null || cp "$T/ca.pem" "$T/trust.pem"
mount --bind "$T/trust.pem" /etc/ssl/certs/ca-certificates.crt 2>/dev/null ||
	skip_all "cannot bind a trust store of the test's own"

meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}'
# tool NAME ARGS-JSON [SR-MCP OPTIONS...]: the result object of one call
tool() {
	local name=$1 args=$2
	shift 2
	local call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'$name'","arguments":'$args','$meta'}}'
	mcp_call "$call" sr-mcp --state-dir "$T/state" --network allow --net-allow other.test \
		--secret API_TOKEN=api.test:Authorization "$@" |
		python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["result"]))'
}
field() { python3 -c 'import json, sys; r = json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
F=(--secret-file "API_TOKEN=$T/tok")

info=$(tool sandbox_info '{}' "${F[@]}")
is "$(field 'r["structuredContent"]["secrets"]' <<<"$info")" \
	"[{'name': 'API_TOKEN', 'host': 'api.test', 'header': 'Authorization'}]" "sandbox_info lists the secret's name, host and header"
unlike "$info" "$REAL" "... never its value"

code='curl -sS -H \"Authorization: Bearer $API_TOKEN\" https://api.test/api/secret; curl -sS -H \"Authorization: Bearer $API_TOKEN\" https://api.test/api/echo | grep -i ^authorization; echo token=$API_TOKEN; env | grep -c sk-real; echo $API_TOKEN > ws-token.txt'
res=$(tool run_code '{"language":"bash","code":"'"$code"'","workspace_id":"sec"}' "${F[@]}")
out=$(field 'r["structuredContent"]["stdout"]' <<<"$res")
like "$out" "^authorized" "run_code: curl with the placeholder is authorized"
like "$out" "Authorization: Bearer srph_[0-9a-f]{32}" "... the echo comes back with the placeholder"
like "$out" "token=srph_" "... the code's variable is the placeholder"
like "$out" "
0" "... and no variable holds the value"
unlike "$res" "$REAL" "the value is not in the result"
res=$(tool run_code '{"language":"python","code":"import os, requests\nprint(requests.get(\"https://api.test/api/secret\", headers={\"Authorization\": \"Bearer \" + os.environ[\"API_TOKEN\"]}).text.strip())"}' "${F[@]}")
is "$(field 'r["structuredContent"]["stdout"]' <<<"$res")" "authorized" "python requests in run_code: authorized"
# args LANGUAGE SESSION CODE: run_code's arguments, as JSON
args() { python3 -c 'import json, sys; print(json.dumps({"language": sys.argv[1], "session": sys.argv[2] == "1", "code": sys.argv[3]}))' "$@"; }
if command -v node >/dev/null; then
	res=$(tool run_code "$(args javascript 0 '(async () => {
  for (const p of ["secret", "echo"]) {
    const r = await fetch("https://api.test/api/" + p, { headers: { Authorization: "Bearer " + process.env.API_TOKEN } })
      .catch((e) => ({ status: "error " + String(e.cause || e), text: async () => "" }));
    console.log(r.status, (await r.text()).trim().split("\n").filter((l) => /^(authorized|Authorization)/.test(l)).join(" | "));
  }
})()')" "${F[@]}")
	out=$(field 'r["structuredContent"]["stdout"]' <<<"$res")
	like "$out" "^200 authorized" "javascript run_code: Node's fetch with the placeholder is authorized (200)"
	like "$out" "
200 Authorization: Bearer srph_[0-9a-f]{32}" "... its echo comes back with the placeholder"
	unlike "$res" "$REAL" "... the value is not in the result"
else
	skip "javascript fetch" "node is not installed"
fi
sess='import os, requests
print(requests.get("https://api.test/api/secret", headers={"Authorization": "Bearer " + os.environ["API_TOKEN"]}).status_code)
print("env", sum("sk-real" in v for v in os.environ.values()), open("/proc/self/environ", "rb").read().count(b"sk-real"))
print("ph", os.environ["API_TOKEN"][:5])'
res=$(tool run_code "$(args python 1 "$sess")" "${F[@]}")
is "$(field '"session" in r["structuredContent"]' <<<"$res")" True "a python session call"
is "$(field 'r["structuredContent"]["stdout"]' <<<"$res")" "200
env 0 0
ph srph_" "... requests with the placeholder: 200; the value not in the session's environment"
unlike "$res" "$REAL" "... nor in its result"
res=$(tool run_code '{"language":"bash","code":"curl -sS -H \"Authorization: Bearer $API_TOKEN\" https://other.test/api/secret"}' "${F[@]}")
like "$(field 'r["structuredContent"]["stdout"]' <<<"$res")" "^unauthorized: got Bearer srph_" \
	"to another allowed host the placeholder goes out unchanged"
ok "the workspace holds the placeholder only" grep -q '^srph_' "$T/state/workspaces/sec/ws-token.txt"
nok "the value is in no file of the state directory (jobs, logs, records, workspaces)" \
	grep -rqF -- "$REAL" "$T/state"
mkdir -m 700 "$T/out"
res=$(tool export_workspace '{"workspace_id":"sec"}' "${F[@]}" --host-dir "$T/out")
ok "an export of the workspace: the placeholder is in its archive (the control)" \
	sh -c 'zcat "$1"/*.tar.gz | grep -aq srph_' _ "$T/out"
nok "... and the value is in no file of the export" \
	sh -c 'zcat "$1"/*.tar.gz | grep -aqF -- "$2" || grep -rqF -- "$2" "$1"' _ "$T/out" "$REAL"

# From sr-mcp's environment: kept in STATE/secrets, mode 600, and no job's.
res=$(SR_SECRET_API_TOKEN=$REAL tool run_code '{"language":"bash","code":"curl -sS -H \"Authorization: Bearer $API_TOKEN\" https://api.test/api/secret; env | grep -c SR_SECRET"}')
is "$(field 'r["structuredContent"]["stdout"]' <<<"$res")" "authorized
0" "the value from SR_SECRET_API_TOKEN: authorized, the variable not in the run"
is "$(stat -c %a "$T/state/secrets/API_TOKEN")" 600 "... kept in STATE/secrets/API_TOKEN, mode 600"
is "$(grep -rlF -- "$REAL" "$T/state")" "$T/state/secrets/API_TOKEN" "... the one file of the state holding it"

run sr-mcp --state-dir "$T/s2" --secret API_TOKEN=api.test:Authorization "${F[@]}" </dev/null
like "$rc:$err" "^100:.*--secret needs --network allow" "--secret without --network allow: 100"
run sr-mcp --state-dir "$T/s2" --network allow --secret API_TOKEN=api.test:Authorization </dev/null
like "$rc:$err" "^100:.*--secret API_TOKEN has no value" "--secret without a value: 100"
run sr-mcp --state-dir "$T/s2" --network allow --secret 'API_TOKEN=api.test:Auth orization' </dev/null
is "$rc" 100 "a malformed --secret: 100"
chmod 644 "$T/tok"
run sr-mcp --state-dir "$T/s2" --network allow --secret API_TOKEN=api.test:Authorization "${F[@]}" </dev/null
like "$rc:$err" "^111:.*not a regular file of mode 600" "a secret file others may read: 111"
done_testing
