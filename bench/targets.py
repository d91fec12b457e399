#!/usr/bin/env python3
"""The figures docs/benchmark.md states targets for, computed from this run."""
import json
import os
import sys

work, chain = sys.argv[1], sys.argv[2]
g1p = os.path.join(work, "g1.json")  # absent when SR_BENCH_ONLY left it out
g1 = json.load(open(g1p))["results"] if os.path.exists(g1p) else []
med = {x["command"]: x["median"] * 1000 for x in g1}
rows = []
if "bwrap" in med and chain in med:
    r = med[chain] / med["bwrap"]
    rows.append(("full chain, /bin/true", "≤ 0.6 × bwrap", f"{r:.2f} × bwrap ({med[chain]:.2f} ms vs {med['bwrap']:.2f} ms)", r <= 0.6))
if "bwrap" in med and "sr-jail" in med:
    r = med["sr-jail"] / med["bwrap"]
    rows.append(("sr-jail alone, /bin/true", "≤ 0.6 × bwrap", f"{r:.2f} × bwrap ({med['sr-jail']:.2f} ms vs {med['bwrap']:.2f} ms)", r <= 0.6))
env = "env (one extra exec)"
if "sr-exec (filter load)" in med:
    # What the filter costs, sr-exec's own exec included: sr-exec is a
    # static musl program, whose exec costs less than `env`'s (a glibc
    # one), so its run is measured against bare /bin/true, as sr-limit's.
    d = med["sr-exec (filter load)"] - med["bare"]
    rows.append(("sr-exec filter load", "< 0.5 ms",
                 f"{d:.3f} ms over bare /bin/true, its own exec, Landlock and the filter included", d < 0.5))
if "sr-limit" in med:
    d = med["sr-limit"] - med["bare"]
    extra = f"; `env /bin/true`, one glibc exec, is {med[env] - med['bare']:.3f} ms over bare" if env in med else ""
    rows.append(("sr-limit overhead", "< 0.5 ms", f"{d:.3f} ms over bare /bin/true{extra}", d < 0.5))
q = os.path.join(work, "queue-throughput")
if os.path.exists(q):
    v = float(open(q).read().split()[0])
    rows.append(("sr-queue throughput, 2 workers", "≥ 300 jobs/s, durable", f"{v:.0f} jobs/s", v >= 300))
m = os.path.join(work, "mcp.json")
if os.path.exists(m):
    f = json.load(open(m))
    rows.append(("sr-mcp tools/call run_code bash `true`, end to end", "< 10 ms median",
                 f"{f['run_code_ms']:.2f} ms", f["run_code_ms"] < 10))
    rows.append(("sr-mcp resident memory, idle", "< 4 MB", f"{f['rss_kb'] / 1024:.1f} MB", f["rss_kb"] < 4096))
    for key, files in (("ws20k_ms", "20,000"), ("ws100k_ms", "100,000")):
        if key in f and f.get("chain_ms"):
            r = f[key] / f["chain_ms"]
            rows.append((f"run_code bash `true` in a workspace of {files} files", "≤ 2 × the chain",
                         f"{r:.2f} × the chain ({f[key]:.2f} ms vs {f['chain_ms']:.2f} ms)", r <= 2))
t = os.path.join(work, "typescript.json")
if os.path.exists(t):
    f = json.load(open(t))
    rows.append(("sr-mcp tools/call run_code typescript hello world, end to end", "< 500 ms median",
                 f"{f['hello_ms']:.0f} ms ({f['hello_ms'] / f['javascript_ms']:.1f} × javascript's {f['javascript_ms']:.0f} ms)",
                 f["hello_ms"] < 500))
n = os.path.join(work, "net.json")
if os.path.exists(n):
    f = json.load(open(n))
    r = f["proxied_ms"] / f["direct_ms"]
    rows.append(("HTTPS GET through sr-net on loopback", "≤ 1.2 × direct",
                 f"{r:.2f} × direct ({f['proxied_ms']:.2f} ms vs {f['direct_ms']:.2f} ms)", r <= 1.2))
ns = os.path.join(work, "net-start.json")
if os.path.exists(ns):
    res = json.load(open(ns))["results"]
    base = [x["median"] * 1000 for x in res if x["command"] == chain]
    net = [x["median"] * 1000 for x in res if x["command"].startswith("with sr-net")]
    if base and net:
        d = net[0] - base[0]
        rows.append(("the chain's start with sr-net and --net-proxy", "< 1 ms added",
                     f"{d:.3f} ms over the chain ({net[0]:.2f} ms vs {base[0]:.2f} ms)", d < 1))
print("| figure | target | this run | met |")
print("| --- | --- | --- | --- |")
for name, target, got, met in rows:
    print(f"| {name} | {target} | {got} | {'yes' if met else 'NO'} |")
missed = [f"{name} ({target}: {got.split(' (')[0]})" for name, target, got, met in rows if not met]
with open(os.path.join(work, "targets-summary"), "w") as out:
    out.write(f"bench: {len(rows) - len(missed)} of {len(rows)} targets met" +
              (f"; missed: {'; '.join(missed)}" if missed else "") + "\n")
