#!/bin/bash
# sr-mcp-http killed hard (SIGKILL: a crash) and started again as its
# systemd unit would (the unit's ExecStart line, run again: Restart=on-failure):
# the request in flight loses its connection, the session's sr-mcp ends by
# itself (its input closed), the old session id gets 404 (start again with
# initialize), and nothing of the tenant's is lost: the job from before is
# found by id, the job that was running when the front died ran to its end
# and is listed, the workspace keeps its files.
. "$(dirname "$0")/lib.sh"
need_userns
need_cmd node curl
need_not_root

A=alice-token-0123456789abcdef
unit=$SR_ROOT/sr-mcp/http/sr-mcp-http.service
line=$(sed -n 's/^ExecStart=//p' "$unit")
like "$line" '^@BINDIR@/sr-mcp-http --listen 127\.0\.0\.1:8080 --tokens %E/sr/http-tokens$' \
	"the unit's ExecStart: sr-mcp-http with its tokens in the configuration directory"
like "$(sed -n 's/^Restart=//p' "$unit")" '^on-failure$' "... restarted on failure (a crash, SIGKILL)"
# that line, as systemd runs it: @BINDIR@ as make install writes it (here,
# the build tree), %E the configuration directory, XDG_STATE_HOME set; only
# the port is a free one (8080 may be taken here)
port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
export XDG_CONFIG_HOME=$T/config XDG_STATE_HOME=$T/state
cmd=${line//@BINDIR@/$SR_ROOT/sr-mcp/http}
cmd=${cmd//%E/$XDG_CONFIG_HOME}
cmd=${cmd//127.0.0.1:8080/127.0.0.1:$port}
read -ra argv <<<"$cmd"
umask 077
mkdir -p "$XDG_CONFIG_HOME/sr"
echo "alice $A" >"$XDG_CONFIG_HOME/sr/http-tokens"
url="http://127.0.0.1:$port/mcp"

start() {
	env "${mcp_san[@]+"${mcp_san[@]}"}" "${argv[@]}" 2>"$1" &
	gw=$!
	at_exit "kill $gw 2>/dev/null"
	wait_for "sr-mcp-http listens ($1)" 20 grep -q 'listening on' "$1"
}
# post BODY [curl args]: sets code, hdr, body
post() {
	local data=$1; shift
	code=$(curl -s -o "$T/body" -D "$T/hdr" -w '%{http_code}' -X POST "$url" -H "Authorization: Bearer $A" \
		-H 'Content-Type: application/json' -H 'Accept: application/json' "$@" --data-binary "$data")
	hdr=$(tr -d '\r' <"$T/hdr"); body=$(cat "$T/body")
}
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
call() { printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}' "$1" "$2" "$3"; }
open_session() {
	post "$init"
	sid=$(sed -n 's/^mcp-session-id: //Ip' <<<"$hdr")
	post '{"jsonrpc":"2.0","method":"notifications/initialized"}' -H "Mcp-Session-Id: $sid"
}

start "$T/gw1.log"
open_session
old=$sid
post "$(call 2 run_code '{"language":"bash","code":"echo before","workspace_id":"keep"}')" -H "Mcp-Session-Id: $old"
job=$(sed -n 's/.*"job_id":"\([0-9a-f]*\)".*/\1/p' <<<"$body")
like "$job" '^[0-9a-f]{16,}$' "before the crash: a run, job $job"
post "$(call 3 write_file '{"workspace_id":"keep","path":"note.txt","content":"kept"}')" -H "Mcp-Session-Id: $old"
like "$body" '"isError":false' "... and a file written in workspace keep"
# a run in flight when the front dies
curl -s -o "$T/inflight" -w '%{http_code}' -X POST "$url" -H "Authorization: Bearer $A" -H 'Content-Type: application/json' \
	-H 'Accept: application/json' -H "Mcp-Session-Id: $old" --max-time 60 \
	--data-binary "$(call 4 run_code '{"language":"bash","code":"sleep 4; echo late","workspace_id":"keep"}')" >"$T/inflight.code" &
cpid=$!
running() {
	post "$(call 10 list_jobs '{}')" -H "Mcp-Session-Id: $old"
	grep -q '"state":"running"' <<<"$body"
}
wait_for "a run in flight (list_jobs says running)" 20 running
ok "the session's sr-mcp runs" pgrep -f "sr-mcp --state-dir $XDG_STATE_HOME/sr-http/alice --tenant alice"
kill -KILL "$gw"
{ wait "$gw"; } 2>/dev/null
wait "$cpid"
crc=$?
ok "the front killed (SIGKILL): the client of the request in flight loses its connection, no answer" \
	test "$crc" != 0 -o "$(cat "$T/inflight.code")" = 000
wait_for "... and the session's sr-mcp ends by itself (its input closed)" 20 \
	! pgrep -f "sr-mcp --state-dir $XDG_STATE_HOME/sr-http/alice --tenant alice"

start "$T/gw2.log"
post '{"jsonrpc":"2.0","id":5,"method":"tools/list"}' -H "Mcp-Session-Id: $old"
is "$code" 404 "started again: the old session id is 404"
like "$body" 'server restarted. Start a new session with initialize' "... saying to initialize again"
open_session
like "$sid" '^[A-Za-z0-9_-]{43}$' "a new session opens"
post "$(call 6 job_status "{\"job_id\":\"$job\"}")" -H "Mcp-Session-Id: $sid"
like "$body" '"status":"succeeded"' "the job from before the crash is found by id, succeeded"
like "$body" 'before' "... with its output"
late=
for _ in $(seq 60); do
	post "$(call 7 list_jobs '{}')" -H "Mcp-Session-Id: $sid"
	late=$(grep -o '"job_id":"[0-9a-f]*"' <<<"$body" | cut -d'"' -f4 | grep -v "^$job$" | head -n 1)
	[ -n "$late" ] && break
	sleep 0.5
done
ok "the run that was in flight is listed (list_jobs)" test -n "$late"
for _ in $(seq 60); do
	post "$(call 8 job_status "{\"job_id\":\"$late\"}")" -H "Mcp-Session-Id: $sid"
	grep -q '"status":"running"\|"status":"queued"' <<<"$body" || break
	sleep 0.5
done
like "$body" '"status":"succeeded"' "... it ran to its end"
like "$body" 'late' "... with its output"
post "$(call 9 read_file '{"workspace_id":"keep","path":"note.txt"}')" -H "Mcp-Session-Id: $sid"
like "$body" 'kept' "the workspace keeps its file"
kill "$gw"
done_testing
