#!/usr/bin/env python3
"""sr-mcp sessions (run_code session: true) against stateless runs, over
stdio: a session call that shows a variable against a stateless run_code
of bash `true`, and a session call after `import json, csv, statistics`
(numpy and pandas too where python3 has them) against the same code run
stateless, which imports again. Targets (HACKING.md, Sessions): within
2 ms of bash `true`; at least 10 times faster than the re-import.
Usage: session.py WORKDIR RUNS. Prints Markdown."""
import os, statistics, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_client import Server  # noqa: E402

work, runs = sys.argv[1], int(sys.argv[2])
srv = Server(os.path.join(work, "session-state"))
p, ask = srv.p, srv.ask

def run(lang, code, session=False, ws="bs"):
    r = ask("tools/call", {"name": "run_code", "arguments": {
        "language": lang, "code": code, "workspace_id": ws, "session": session}})
    sc = r["result"]["structuredContent"]
    assert sc["status"] == "succeeded", sc
    return sc

def timed(n, *a, **k):
    t = []
    for _ in range(n):
        t0 = time.perf_counter()
        run(*a, **k)
        t.append(time.perf_counter() - t0)
    return t

ask("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
mods = ["json", "csv", "statistics"]
for m in ("numpy", "pandas"):
    if subprocess.run(["python3", "-c", f"import {m}"], capture_output=True).returncode == 0:
        mods.append(m)
imports = "import " + ", ".join(mods)
use = "json.dumps(statistics.mean([1, 2, 3]))"
run("python", f"x = 1\n{imports}", session=True)
rows = []
for label, a, k in (("run_code bash `true` (stateless)", ("bash", "true"), {}),
                    ("session call: `x` (a variable shown)", ("python", "x"), {"session": True}),
                    (f"session call: {use}, after {imports}", ("python", use), {"session": True}),
                    (f"stateless run_code python: {imports}; print({use})",
                     ("python", f"{imports}\nprint({use})"), {})):
    timed(5, *a, **k)     # warm
    rows.append((label, timed(runs, *a, **k)))
p.stdin.close()
p.wait()
med = [statistics.median(t) * 1000 for _, t in rows]
print("| command | median | min | max | runs |")
print("| --- | --- | --- | --- | --- |")
for (label, t), m in zip(rows, med):
    print(f"| {label} | {m:.2f} ms | {min(t) * 1000:.2f} ms | {max(t) * 1000:.2f} ms | {len(t)} |")
print()
print(f"A session call showing a variable: {med[1] - med[0]:+.2f} ms against bash `true` "
      f"(target: within 2 ms). After the imports: {med[3] / med[2]:.1f} times faster than "
      f"the stateless run that imports again (target: at least 10).")
