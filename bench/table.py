#!/usr/bin/env python3
"""Render one hyperfine JSON export as a Markdown table of medians, with a
ratio column for each reference row named on the command line."""
import json
import sys

results = json.load(open(sys.argv[1]))["results"]
refs = [r for r in sys.argv[2:] if any(x["command"] == r for x in results)]
med = {x["command"]: x["median"] for x in results}
head = "| command | median | min | max | runs |" + "".join(f" × {r} |" for r in refs)
print(head)
print("|" + " --- |" * (5 + len(refs)))
for x in results:
    ms = lambda v: f"{v * 1000:.2f} ms"
    line = f"| {x['command']} | {ms(x['median'])} | {ms(x['min'])} | {ms(x['max'])} | {len(x['times'])} |"
    for r in refs:
        line += f" {x['median'] / med[r]:.2f} |"
    print(line)
