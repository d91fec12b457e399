#!/usr/bin/env python3
"""mcp-steps.py SERVER-ARGS... -- STEP...: one sr-mcp session over stdio,
and steps in order: "run LANG [ENV] CODE" calls run_code and prints one
line, "error" or "ok", then the result's first text line (stdout for a
run); "sh CMD" runs a shell command between calls. For tests that change
something while sr-mcp runs."""
import json, subprocess, sys

i = sys.argv.index("--")
p = subprocess.Popen(sys.argv[1:i], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
nid = 0

def rpc(method, params):
    global nid
    nid += 1
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": nid, "method": method, "params": params}) + "\n")
    p.stdin.flush()
    while True:
        line = p.stdout.readline()
        if not line:
            sys.exit("sr-mcp ended early")
        m = json.loads(line)
        if m.get("id") == nid:
            return m

rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "mcp-steps", "version": "1"}})
p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
for step in sys.argv[i + 1:]:
    kind, _, rest = step.partition(" ")
    if kind == "sh":
        subprocess.run(rest, shell=True, check=False)
        continue
    lang, _, rest = rest.partition(" ")
    args = {"language": lang, "code": rest}
    if rest.startswith("@"):
        env, _, code = rest[1:].partition(" ")
        args.update(environment=env, code=code)
    r = rpc("tools/call", {"name": "run_code", "arguments": args}).get("result", {})
    sc = r.get("structuredContent") or {}
    first = (sc.get("stdout") if "stdout" in sc and not r.get("isError") else
             (r.get("content") or [{}])[0].get("text", "")) or ""
    print("error" if r.get("isError") else "ok", first.strip().replace("\n", " | "), flush=True)
p.stdin.close()
p.wait()
