#!/bin/bash
# sr-mcp-http with sr-mcp's --host-dir DIR (after --) or SR_MCP_HOST_DIRS:
# each tenant gets DIR/TENANT, made private, so no tenant imports what
# another exported (the export's path, a path through .., the directory
# itself). Controls: a tenant imports its own export; two plain sr-mcp
# with one --host-dir share it (the path the front closes).
. "$(dirname "$0")/lib.sh"
need_userns
need_cmd node curl python3
need_not_root

http_tenants
start_gw() {
	local log=$1; shift
	env "${mcp_san[@]+"${mcp_san[@]}"}" "$@" 2>"$log" &
	at_exit "kill $! 2>/dev/null"
	wait_for "sr-mcp-http listens" 20 grep -q 'listening on' "$log"
	url="http://127.0.0.1:$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\)\/mcp.*/\1/p' "$log")/mcp"
}
# call TOKEN TOOL ARGS: one stateless request (2026-07-28), its answer in body
meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}'
req() { printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"%s","arguments":%s,%s}}' "$1" "$2" "$meta"; }
call() {
	body=$(curl -s -X POST "$url" -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
		-H 'Accept: application/json' -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' \
		-H "Mcp-Name: $2" --data-binary "$(req "$2" "$3")")
}
path_of() { sed -n 's/.*"path":"\([^"]*\)".*/\1/p' <<<"$body"; }

mkdir "$T/host"    # the administrator's directory, made before
start_gw "$T/gw.log" "$gw" --listen 127.0.0.1:0 --tokens "$T/tokens" --state-dir "$T/state" -- --host-dir "$T/host"
is "$(stat -c %a "$T/host/alice" "$T/host/bob" 2>&1 | tr '\n' ' ')" "700 700 " "--host-dir DIR: DIR/alice and DIR/bob made, mode 700"
call "$A" write_file '{"workspace_id":"a","path":"secret.txt","content":"alice-secret"}'
call "$A" export_workspace '{"workspace_id":"a"}'
exp=$(path_of)
like "$exp" "^$T/host/alice/sr-workspace-" "alice's export goes to her own directory"
call "$B" import_files "{\"host_path\":\"$exp\",\"workspace_id\":\"b\"}"
like "$body" '"isError":true' "bob cannot import alice's export by its path"
unlike "$body" 'alice-secret' "... nor read it"
call "$B" import_files "{\"host_path\":\"$T/host/bob/../alice/${exp##*/}\",\"workspace_id\":\"b\"}"
like "$body" '"isError":true' "... nor through his own directory and .."
call "$B" import_files "{\"host_path\":\"$T/host/alice\",\"workspace_id\":\"b\"}"
like "$body" '"isError":true' "... nor alice's whole directory"
call "$B" list_files '{"workspace_id":"b"}'
unlike "$body" 'secret' "bob's workspace has nothing of alice's"
call "$A" import_files "{\"host_path\":\"$exp\",\"workspace_id\":\"a2\"}"
like "$body" '"isError":false' "control: alice imports her own export"
call "$A" read_file '{"workspace_id":"a2","path":"secret.txt"}'
like "$body" 'alice-secret' "... and reads her file from it"

# SR_MCP_HOST_DIRS in the front's environment: the same, per tenant
start_gw "$T/gw2.log" env SR_MCP_HOST_DIRS="$T/env" "$gw" --listen 127.0.0.1:0 --tokens "$T/tokens" --state-dir "$T/state"
call "$B" write_file '{"workspace_id":"b","path":"b.txt","content":"bob"}'
call "$B" export_workspace '{"workspace_id":"b"}'
like "$(path_of)" "^$T/env/bob/sr-workspace-" "SR_MCP_HOST_DIRS=DIR: bob's export goes to DIR/bob"
run "$gw" --tokens "$T/tokens" --state-dir "$T/state" -- --host-dir host
is "$rc" 100 "a relative --host-dir: exit 100"
like "$err" 'host-dir: an absolute path is expected' "... saying so"

# control: plain sr-mcp, two state directories (two users of one account), one --host-dir
line() { printf '%s' "$(req "$1" "$2")"; }
plain() { mcp_call "$(line "$2" "$3")" env "${mcp_san[@]+"${mcp_san[@]}"}" sr-mcp --state-dir "$T/$1" --host-dir "$T/shared"; }
mkdir -p "$T/shared"
plain pa write_file '{"workspace_id":"a","path":"secret.txt","content":"alice-secret"}' >/dev/null
body=$(plain pa export_workspace '{"workspace_id":"a"}')
shared=$(path_of)
plain pb import_files "{\"host_path\":\"$shared\",\"workspace_id\":\"b\"}" >/dev/null
like "$(plain pb read_file '{"workspace_id":"b","path":"secret.txt"}')" 'alice-secret' \
	"control: two plain sr-mcp with one --host-dir: the second imports the first's export and reads it"
done_testing
