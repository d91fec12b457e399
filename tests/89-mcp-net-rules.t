#!/bin/bash
# sr-net --check judges the options, rules and secrets of a run and
# touches nothing; sr-mcp runs it once at start with its --net-allow,
# --net-deny and --secret, so that a rule sr-net would refuse ends sr-mcp
# at start (100, in sr-net's words) instead of failing every run.
. "$(dirname "$0")/lib.sh"

# sr-net --check: 0 for what a run takes, 100 for what it refuses.
for r in api.test api.test:443 'api.test:80,8443' '*.x.test' '*' 192.0.2.1:53; do
	run sr-net --check --allow "$r" --deny other.test
	is "$rc:$err" "0:" "sr-net --check --allow $r: 0, nothing said"
done
for r in api.test:99999 api.test:x api.test: 'a b' api.test:0; do
	run sr-net --check --allow "$r"
	like "$rc:$err" "^100:sr-net: usage: --allow: invalid host: '$r'" "sr-net --check --allow '$r': 100, saying why"
	run sr-net --socket "$T/x.sock" --allow "$r" true
	is "$rc" 100 "... the control: a run refuses it the same"
done
run sr-net --check --deny api.test:99999
is "$rc" 100 "a bad --deny: 100"
run sr-net --check --allow api.test true
like "$rc:$err" "^100:.*--check runs no program" "--check with a program: 100"
run sr-net --check --log "$T/net.log" --secret A=api.test:Authorization
like "$rc:$err" "^100:sr-net: usage: secret A has no value" "a secret without a value: 100"
run env SR_SECRET_A=short sr-net --check --secret A=api.test:Authorization
is "$rc" 100 "a value too short: 100"
run env SR_SECRET_A=sk-long-enough-0123456789 sr-net --check --log "$T/net.log" \
	--secret A=api.test:Authorization --ca-bundle "$T/bundle.pem" --socket "$T/s.sock"
is "$rc" 0 "a secret with a value: 0"
nok "... no log, bundle or socket made" ls "$T/net.log" "$T/bundle.pem" "$T/s.sock"
run sr-net --socket "$T/s.sock" --log "$T/net.log" true
ok "the control: a run does make its log" test -f "$T/net.log"

# sr-mcp runs it at start.
for r in api.test:99999 api.test:x 'api.test:0'; do
	run sr-mcp --state-dir "$T/state" --network allow --net-allow "$r" </dev/null
	like "$rc:$err" "^100:sr-net: usage: --allow: invalid host: '$r'.*
sr-mcp: usage: the network rules or secrets do not hold" "sr-mcp --net-allow $r: 100 at start, sr-net's words"
	run sr-mcp --state-dir "$T/state" --network allow --net-allow api.test --net-deny "$r" </dev/null
	like "$rc:$err" "^100:sr-net: usage: --deny: invalid host: '$r'" "sr-mcp --net-deny $r: 100 at start"
done
(umask 077 && echo short >"$T/tok")
run sr-mcp --state-dir "$T/state" --network allow --secret A=api.test:Authorization \
	--secret-file "A=$T/tok" </dev/null
like "$rc:$err" "^100:sr-net: [a-z]+: secret A: the value must be" "a secret's value sr-net refuses: 100 at start"
meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}'
call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sandbox_info","arguments":{},'$meta'}}'
out=$(mcp_call "$call" sr-mcp --state-dir "$T/state" --network allow --net-allow 'api.test:443,8443' \
	--net-deny '*.bad.test')
like "$out" '"result"' "the control: good rules, sr-mcp starts and answers"
echo sk-long-enough-0123456789 >"$T/tok"
out=$(mcp_call "$call" sr-mcp --state-dir "$T/state" --network allow --secret A=api.test:Authorization \
	--secret-file "A=$T/tok")
like "$out" '"name":"A"' "... and so with a good secret"
done_testing
