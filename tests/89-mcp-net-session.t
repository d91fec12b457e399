#!/bin/bash
# sr-mcp --network allow and sessions: each session call's result lists the
# connections the interpreter made during that call (refused ones with
# sr-net's reason and the note), not those of the calls before it. No
# network needed: sr-net refuses a host not allowed before any lookup.
. "$(dirname "$0")/lib.sh"
need_userns
command -v python3 >/dev/null || skip_all "no python3 here"

# calls LANGUAGE SESSION CODE...: one call per CODE (in a session if SESSION
# is 1), on one sr-mcp; a JSON line of each result.
calls() {
	/usr/bin/python3 - "$@" <<'PY'
import json, subprocess, sys, os
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}
p = subprocess.Popen(["sr-mcp", "--state-dir", os.environ["T"] + "/state", "--network", "allow",
                      "--net-allow", "api.test"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
for i, code in enumerate(sys.argv[3:]):
    args = {"language": sys.argv[1], "code": code, "session": sys.argv[2] == "1",
            "workspace_id": "netsess"}
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                              "params": {"name": "run_code", "arguments": args, "_meta": meta}}) + "\n")
    p.stdin.flush()
    r = json.loads(p.stdout.readline())["result"]
    sc = r.get("structuredContent", {})
    print(json.dumps({"net": sc.get("network"), "note": sc.get("network_note", ""),
                      "out": sc.get("stdout", ""), "err": sc.get("stderr", ""),
                      "session": "session" in sc}))
p.stdin.close()
p.wait()
PY
}
refuse='import urllib.request as u
try:
    u.urlopen("http://other.test/x", timeout=30)
except Exception as e:
    print("refused:", e)'
export T
calls python 1 "$refuse" 'print("quiet")' "$refuse" >"$T/res"
field() { sed -n "$1p" "$T/res" | python3 -c 'import json, sys; r = json.load(sys.stdin); print(eval(sys.argv[1]))' "$2"; }
is "$(field 1 'r["session"]')" "True" "the calls run in a session"
like "$(field 1 'r["out"]')" "refused: HTTP Error 403" "a session call to a host not allowed: the proxy's 403"
is "$(field 1 '[(d["host"], d["port"]) for d in r["net"]["denied"]]')" "[('other.test', 80)]" \
	"... and the call's result lists the refused connection"
like "$(field 1 'r["net"]["denied"][0]["why"]')" "not in the allow list" "... with sr-net's reason"
like "$(field 1 'r["note"]')" "refused 1 connection: other.test:80 .*--net-allow HOST" "... and the note"
is "$(field 2 'r["out"]')" "quiet" "the next call makes no connection"
is "$(field 2 '(r["net"] or {}).get("refused", 0), r["note"]')" "(0, '')" \
	"... and lists none (the calls before it are not its)"
is "$(field 3 '[(d["host"], d["port"]) for d in r["net"]["denied"]]')" "[('other.test', 80)]" \
	"a third call refused again: its own refusal, once"
# The proxy's own processes (sr-net forks a worker as connections come)
# are not the code's: a session call that connects is not told it left
# anything running, and its session lives on; the code's own leftovers,
# a child and an orphan of the jail's init, are still killed (the control).
is "$(field 1 'r["err"]')$(field 3 'r["err"]')" "" "calls that connect leave nothing running of theirs (the proxy's workers are not the code's)"
calls python 1 "$refuse" 'import subprocess; subprocess.Popen(["sleep", "300"]); print("left")' \
	'import os, time
if os.fork() == 0:
    if os.fork() == 0:
        time.sleep(300)
    os._exit(0)
os.wait(); print("orphan")' "$refuse" >"$T/res"
like "$(field 2 'r["err"]')" "this call left 1 process running: killed" "control: a child the code left running is killed"
# A connection the code keeps open from one call to the next is carried by
# processes of the chain's (the jail's forwarder's child, sr-net's worker):
# they are left alone, and the next call's request goes through on it.
calls python 1 'import socket
keep = socket.create_connection(("127.0.0.1", 3128))
print("open")' 'keep.sendall(b"CONNECT other.test:80 HTTP/1.1\r\nHost: other.test:80\r\n\r\n")
print(keep.recv(200).split(b"\r\n")[0].decode())' >"$T/res2"
is "$(sed -n 1p "$T/res2" | python3 -c 'import json, sys; r = json.load(sys.stdin); print(r["out"].strip(), repr(r["err"]))')" "open ''" \
	"a call that leaves a connection open is told of nothing left running"
like "$(sed -n 2p "$T/res2" | python3 -c 'import json, sys; r = json.load(sys.stdin); print(r["out"].strip(), repr(r["err"]))')" "^HTTP/1.1 403 .* ''$" \
	"... and the next call's request on it is answered by the proxy"
# (an orphan is killed after its call, or before the next: the report
# names it in either)
like "$(field 3 'r["err"]')$(field 4 'r["err"]')" "this call left [0-9]+ process(es)? running: killed" \
	"control: an orphan of the code's (the jail's init its parent) is killed"
is "$(field 4 'r["session"], r["out"][:23]')" "(True, 'refused: HTTP Error 403')" \
	"the session lives on and connects again"

# Node's fetch (the runners' preload, node-lib/proxy.js), in a run and in
# a session: it goes to the proxy, whose reason is in the error.
if command -v node >/dev/null; then
	fetch='await fetch("https://other.test/y").then((r) => console.log(r.status),
	  (e) => console.log("failed:", String(e.cause || e)));'
	calls javascript 0 "(async () => { $fetch })()" >"$T/res"
	like "$(field 1 'r["out"]')" "failed: .*the proxy refused other.test:443: 403 .*not in the allow list" \
		"javascript run_code: fetch goes to the proxy, its refusal in the error"
	is "$(field 1 '[(d["host"], d["port"]) for d in r["net"]["denied"]]')" "[('other.test', 443)]" \
		"... and the result lists it"
	calls javascript 1 "$fetch" >"$T/res"
	like "$(field 1 'r["out"]')" "failed: .*the proxy refused other.test:443: 403 .*not in the allow list" \
		"a javascript session's fetch goes to the proxy too"
	is "$(field 1 '[(d["host"], d["port"]) for d in r["net"]["denied"]]')" "[('other.test', 443)]" \
		"... and the call's result lists it"
else
	skip "node fetch under sr-mcp --network allow" "no node here"
fi
done_testing
