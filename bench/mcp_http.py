#!/usr/bin/env python3
"""sr-mcp over Streamable HTTP (sr-mcp-http) against stdio: a tools/call of
run_code with bash `true`, N times in one session each way (HTTP: one
keep-alive connection, JSON answers), and the ratio (target <= 1.5x).
Usage: mcp_http.py WORKDIR RUNS. Prints Markdown."""
import http.client, json, os, re, statistics, subprocess, sys, time
from mcp_client import Server

work, runs = sys.argv[1], int(sys.argv[2])
root = os.environ["SR_ROOT"]
token = "bench-token-" + os.urandom(16).hex()
tokens = os.path.join(work, "http-tokens")
fd = os.open(tokens, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
os.write(fd, f"bench {token}\n".encode())
os.close(fd)
gw = subprocess.Popen([os.path.join(root, "sr-mcp/http/sr-mcp-http"), "--listen", "127.0.0.1:0", "--tokens", tokens,
                       "--state-dir", os.path.join(work, "http-state")], stderr=subprocess.PIPE, text=True)
port = None
while port is None:
    line = gw.stderr.readline()
    if not line:
        sys.exit(f"mcp_http.py: fatal: sr-mcp-http did not start")
    m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/mcp", line)
    port = m and int(m.group(1))
conn = http.client.HTTPConnection("127.0.0.1", port)
sid, nid = None, 0

def ask(method, params):
    global sid, nid
    nid += 1
    h = {"Authorization": f"Bearer {token}", "Content-Type": "application/json", "Accept": "application/json"}
    if sid:
        h["Mcp-Session-Id"] = sid
    conn.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": nid, "method": method, "params": params}), h)
    r = conn.getresponse()
    sid = sid or r.getheader("Mcp-Session-Id")
    return json.loads(r.read())

call = {"name": "run_code", "arguments": {"language": "bash", "code": "true", "workspace_id": "bench"}}

def measure(ask_fn):
    for _ in range(10):
        assert ask_fn("tools/call", call)["result"]["structuredContent"]["status"] == "succeeded"
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        r = ask_fn("tools/call", call)
        times.append(time.perf_counter() - t0)
        assert r["result"]["structuredContent"]["status"] == "succeeded", r
    return times

ask("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
ask_http = ask
h = measure(ask_http)
gw.terminate()
gw.wait()

stdio = Server(os.path.join(work, "http-stdio-state"))
stdio.ask("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
s = measure(stdio.ask)
stdio.p.stdin.close()
stdio.p.wait()

ms = lambda xs: f"{statistics.median(xs) * 1000:.2f} ms"
ratio = statistics.median(h) / statistics.median(s)
print("| command | median | min | max | runs | × stdio |")
print("| --- | --- | --- | --- | --- | --- |")
print(f"| tools/call run_code bash `true` over Streamable HTTP (sr-mcp-http, loopback, keep-alive) | {ms(h)} | {ms([min(h)])} | {ms([max(h)])} | {runs} | {ratio:.2f} |")
print(f"| the same over stdio (sr-mcp) | {ms(s)} | {ms([min(s)])} | {ms([max(s)])} | {runs} | 1.00 |")
print()
print(f"HTTP round trip against stdio: {ratio:.2f} × (target ≤ 1.5 ×: {'met' if ratio <= 1.5 else 'NOT met'}).")
with open(os.path.join(work, "http.json"), "w") as f:
    json.dump({"http_ms": statistics.median(h) * 1000, "stdio_ms": statistics.median(s) * 1000, "ratio": ratio}, f)
