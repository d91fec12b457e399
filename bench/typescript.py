#!/usr/bin/env python3
"""sr-mcp's typescript runner end to end: a tools/call of run_code with a
TypeScript hello world over stdio, N times in one session, against the
same in JavaScript; the first TypeScript call, which makes the runner's
start-up snapshot (the compiler loaded, Node.js's types parsed), apart;
and a few calls of the full check, in a state directory where no
snapshot can be made (its typescript a file).
The CPU budget is off (SR_MCP_CPU_BUDGET=off): the calls come from one
client, and the budget's waits are not what is measured here.
Usage: typescript.py WORKDIR RUNS. Prints Markdown; saves the figures for
targets.py in WORKDIR/typescript.json."""
import json, os, statistics, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_client import Server  # noqa: E402

work, runs = sys.argv[1], int(sys.argv[2])


os.environ["SR_MCP_CPU_BUDGET"] = "off"


def server(name):
    s = Server(os.path.join(work, name))
    s.ask("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
    return s


srv = server("ts-state")
ask = srv.ask
code = {"typescript": "const greet = (who: string): string => `hello, ${who}`;\nconsole.log(greet('world'));\n",
        "javascript": "const greet = (who) => `hello, ${who}`;\nconsole.log(greet('world'));\n"}


def call(lang):
    t0 = time.perf_counter()
    r = ask("tools/call", {"name": "run_code", "arguments": {"language": lang, "code": code[lang], "workspace_id": "bench"}})
    t = time.perf_counter() - t0
    sc = r["result"]["structuredContent"]
    assert sc["status"] == "succeeded" and sc["stdout"] == "hello, world\n", r
    return t


first = call("typescript")
times = {"typescript": [], "javascript": []}
for _ in range(3):
    call("javascript")
    call("typescript")
for _ in range(runs):
    for lang in times:
        times[lang].append(call(lang))
srv.p.stdin.close()
srv.p.wait()
os.makedirs(os.path.join(work, "ts-full"))
open(os.path.join(work, "ts-full", "typescript"), "w").write("no snapshot here\n")
srv = server("ts-full")
ask = srv.ask
call("typescript")
full = [call("typescript") for _ in range(max(3, runs // 8))]
srv.p.stdin.close()
srv.p.wait()
js = statistics.median(times["javascript"]) * 1000
print("| command | median | min | max | runs | × javascript |")
print("| --- | --- | --- | --- | --- | --- |")
for label, t in (("tools/call run_code typescript hello world (checked with @types/node, from the snapshot)", times["typescript"]),
                 ("tools/call run_code javascript hello world", times["javascript"]),
                 ("the same TypeScript, the full check (no snapshot)", full)):
    m = statistics.median(t) * 1000
    print(f"| {label} | {m:.0f} ms | {min(t) * 1000:.0f} ms | {max(t) * 1000:.0f} ms | {len(t)} | {m / js:.2f} |")
print()
print(f"The first TypeScript call of the state directory, which makes the snapshot: {first * 1000:.0f} ms.")
json.dump({"hello_ms": statistics.median(times["typescript"]) * 1000, "javascript_ms": js},
          open(os.path.join(work, "typescript.json"), "w"))
