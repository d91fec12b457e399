#!/usr/bin/env python3
"""sr-mcp end to end: a tools/call of run_code with bash `true`, over
stdio, N times in one session, against the same job without MCP (sr-queue
submit and wait) and the chain alone, and in workspaces of 20,000 and
100,000 files (what a run made comes from the jail's list of what it
applied, not a walk: goal within 2 x the chain) against the chain without
the size cache; sr-mcp's resident memory when idle.
Usage: mcp.py WORKDIR RUNS. Prints Markdown; saves the figures for
targets.py in WORKDIR/mcp.json. SR_BENCH_MCP_BIG=0 leaves the big
workspaces out (run_code and the chain alone, for side-by-side runs of
two builds)."""
import json, os, statistics, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_client import Server  # noqa: E402

work, runs = sys.argv[1], int(sys.argv[2])
state = os.path.join(work, "mcp-state")
srv = Server(state)
p, ask = srv.p, srv.ask

def rss_kb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])

ask("initialize", {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
time.sleep(0.2)
idle_before = rss_kb(p.pid)
call = {"name": "run_code", "arguments": {"language": "bash", "code": "true", "workspace_id": "bench"}}
for _ in range(10):
    r = ask("tools/call", call)
    assert r["result"]["structuredContent"]["status"] == "succeeded", r
times = []
for _ in range(runs):
    t0 = time.perf_counter()
    r = ask("tools/call", call)
    times.append(time.perf_counter() - t0)
    assert r["result"]["structuredContent"]["status"] == "succeeded", r
time.sleep(0.2)
idle_after = rss_kb(p.pid)
# Workspaces of 20,000 and 100,000 files (a node_modules, say): the quota
# starts from its size kept in STATE/ws-size/ID, and the files a run made
# come from the jail's list of what it applied, not from walks of it.
def big_workspace(ws, dirs):
    # made by a run, filled here (a run making 100,000 files would spend
    # the client's CPU budget), its size cache removed: measured once again
    r = ask("tools/call", {"name": "run_code", "arguments": {"language": "bash", "code": "true", "workspace_id": ws}})
    assert r["result"]["structuredContent"]["status"] == "succeeded", r
    top = os.path.join(os.path.realpath(state), "workspaces", ws)
    for d in range(dirs):
        os.makedirs(os.path.join(top, f"d{d}"))
        for f in range(100):
            with open(os.path.join(top, f"d{d}", f"f{f}"), "w") as out:
                out.write("x" * 100)
    os.unlink(os.path.join(os.path.realpath(state), "ws-size", ws))
    # the disk done writing the new files back first, so that the fsyncs of
    # these runs (a run is a durable job) wait for their own writes only
    os.sync()
    time.sleep(1)
    call_ws = {"name": "run_code", "arguments": {"language": "bash", "code": "true", "workspace_id": ws}}
    t = []
    for i in range(min(runs, 50) + 5):
        t0 = time.perf_counter()
        r = ask("tools/call", call_ws)
        if i >= 5:
            t.append(time.perf_counter() - t0)
        assert r["result"]["structuredContent"]["status"] == "succeeded", r
    return t
big = os.environ.get("SR_BENCH_MCP_BIG", "1") != "0"
mtimes = big_workspace("many", 200) if big else []
htimes = big_workspace("many100k", 1000) if big else []
p.stdin.close()
p.wait()

spool = os.path.join(state, "spool")
runner = os.path.join(os.environ["SR_ROOT"], "sr-mcp/runners/bash")
code = os.path.join(work, "true.sh")
open(code, "w").write("true\n")
ws = os.path.join(os.path.realpath(state), "workspaces", "bench")
# The runner's environment as sr-mcp gives it, the workspace quota (1G by
# default) and its size cache included.
env = {"PATH": os.environ["PATH"], "SR_CODE": code, "SR_WORKSPACE": ws,
       "SR_WORKSPACE_QUOTA": str(1 << 30),
       "SR_WORKSPACE_QUOTA_CACHE": os.path.join(os.path.realpath(state), "ws-size", "bench"),
       "SR_LIMIT_ARGS": "--data 536870912 --pids 128 --timeout 300s", "SR_JAIL_ARGS": "", "SR_EXEC_ARGS": ""}
worker = subprocess.Popen(["sr-queue", "run", spool, "-j", "2"], stderr=subprocess.DEVNULL)
qtimes, ctimes = [], []
args = ["sr-queue", "submit", spool, "--cwd", ws] + [f"--env={k}={v}" for k, v in env.items()] + ["--", runner]
for i in range(runs + 10):
    t0 = time.perf_counter()
    jid = subprocess.run(args, capture_output=True, text=True).stdout.strip()
    subprocess.run(["sr-queue", "wait", spool, jid], capture_output=True)
    if i >= 10:
        qtimes.append(time.perf_counter() - t0)
worker.terminate()
worker.wait()
for i in range(runs + 10):
    t0 = time.perf_counter()
    subprocess.run([runner], env=env, cwd=ws, capture_output=True)
    if i >= 10:
        ctimes.append(time.perf_counter() - t0)

# The chain in the workspace of 20,000 files, without the size cache: what
# every run paid before it (a walk of the whole workspace).
nocache = dict(env, SR_WORKSPACE=os.path.join(os.path.realpath(state), "workspaces", "many"))
del nocache["SR_WORKSPACE_QUOTA_CACHE"]
wtimes = []
for i in range(min(runs, 50) + 3 if big else 0):
    t0 = time.perf_counter()
    subprocess.run([runner], env=nocache, cwd=ws, capture_output=True)
    if i >= 3:
        wtimes.append(time.perf_counter() - t0)

med = statistics.median(times) * 1000
print("| command | median | min | max | runs | × chain |")
print("| --- | --- | --- | --- | --- | --- |")
cm = statistics.median(ctimes) * 1000
for label, t in (("tools/call run_code bash `true` (sr-mcp, stdio, end to end)", times),
                 ("the same job through sr-queue submit + wait (no MCP)", qtimes),
                 ("the chain alone: the bash runner, run directly", ctimes),
                 ("tools/call run_code bash `true` in a workspace of 20,000 files", mtimes),
                 ("tools/call run_code bash `true` in a workspace of 100,000 files", htimes),
                 ("the chain alone in that workspace, without the size cache (a walk per run)", wtimes)):
    if not t:
        continue
    m = statistics.median(t) * 1000
    print(f"| {label} | {m:.2f} ms | {min(t) * 1000:.2f} ms | {max(t) * 1000:.2f} ms | {len(t)} | {m / cm:.2f} |")
print()
print(f"sr-mcp resident memory: {idle_before} kB idle after initialize, {idle_after} kB idle after {runs + 10} calls.")
fig = {"run_code_ms": med, "rss_kb": max(idle_before, idle_after), "chain_ms": cm}
if big:
    fig.update(ws20k_ms=statistics.median(mtimes) * 1000, ws100k_ms=statistics.median(htimes) * 1000)
json.dump(fig, open(os.path.join(work, "mcp.json"), "w"))
