#!/bin/bash
# sr-mcp --network allow --net-allow HOST: runs and installs reach the hosts
# allowed and nothing else, through sr-net; the result lists what was
# refused and why, and sandbox_info says what is allowed. On the real
# network where this machine reaches the npm registry (CI does); a skip
# saying why elsewhere.
. "$(dirname "$0")/lib.sh"
need_npm_registry

meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}'
# tool NAME ARGS-JSON: the result object of one call, on an sr-mcp allowing the registry
tool() {
	local call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"'$1'","arguments":'$2','$meta'}}'
	mcp_call "$call" sr-mcp --state-dir "$T/state" --network allow \
		--net-allow registry.npmjs.org --net-deny evil.example.org |
		python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["result"]))'
}
field() { python3 -c 'import json, sys; r = json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

info=$(tool sandbox_info '{}')
is "$(field 'r["structuredContent"]["network"]' <<<"$info")" "allow" "sandbox_info: network allow"
is "$(field 'r["structuredContent"]["network_allow"]' <<<"$info")" "['registry.npmjs.org', '-evil.example.org']" \
	"... and what is allowed and denied"

code='curl -sS -o /dev/null -w \"%{http_code}\\n\" https://registry.npmjs.org/is-number; curl -sS https://github.com/ -o /dev/null; echo rc=$?; curl -sS --noproxy \"*\" --max-time 10 https://registry.npmjs.org/ -o /dev/null; echo direct=$?'
res=$(tool run_code '{"language":"bash","code":"'"$code"'"}')
out=$(field 'r["structuredContent"]["stdout"]' <<<"$res")
like "$out" "^200" "run_code reaches the allowed registry"
like "$out" "rc=56" "... another host is refused (curl: CONNECT failed)"
like "$out" "direct=[1-9]" "... and the registry itself is not reached past the proxy"
is "$(field '[(d["host"], d["port"]) for d in r["structuredContent"]["network"]["denied"]]' <<<"$res")" \
	"[('github.com', 443)]" "the result lists the refused connection"
like "$(field 'r["structuredContent"]["network"]["denied"][0]["why"]' <<<"$res")" "not in the allow list" \
	"... with sr-net's reason"
like "$(field 'r["content"][0]["text"]' <<<"$res")" "refused 1 connection: github.com:443 .*tell the user.*--net-allow HOST" \
	"... and the text tells the model what to do"
is "$(field 'r["isError"]' <<<"$res")" "False" "... the run itself succeeded"
res=$(tool run_code '{"language":"python","code":"import urllib.request as u\nprint(u.urlopen(\"https://registry.npmjs.org/is-number\").status)"}')
is "$(field 'r["structuredContent"]["stdout"]' <<<"$res")" "200" "python through the proxy too"
res=$(tool run_code '{"language":"bash","code":"curl -sS https://evil.example.org/ -o /dev/null"}')
like "$(field 'r["structuredContent"]["network"]["denied"][0]["why"]' <<<"$res")" "denied by --deny evil.example.org" \
	"--net-deny: refused, naming the rule"
res=$(tool install_packages '{"manager":"npm","packages":["is-number@7.0.0"],"workspace_id":"netws"}')
like "$(field 'r["content"][0]["text"]' <<<"$res")" "is-number" "install_packages npm through the proxy"
ok "... the package is in the workspace" test -f "$T/state/workspaces/netws/node_modules/is-number/package.json"

run sr-mcp --state-dir "$T/s2" --net-allow pypi.org </dev/null
like "$rc:$err" "^100:.*--net-allow and --net-deny are the rules of --network allow" "--net-allow without --network allow: 100"
run sr-mcp --state-dir "$T/s2" --network allow --net-allow 'bad host' </dev/null
is "$rc" 100 "a malformed --net-allow: 100"
done_testing
