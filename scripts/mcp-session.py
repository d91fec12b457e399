#!/usr/bin/env python3
"""mcp-session.py [SR_MCP] - the README's worked example, for real: an MCP
session with sr-mcp over stdio, as a client would drive it (a CSV written,
summarised, plotted; the files listed; the workspace exported). Prints each
call and the text of its result; images as a line naming them. Runs in a
state directory of its own, removed at the end. Exits 1 when a call fails
(a JSON-RPC error or an isError result) or sr-mcp ends early."""
import base64, json, os, shutil, subprocess, sys, tempfile

server = sys.argv[1] if len(sys.argv) > 1 else "sr-mcp"
top = tempfile.mkdtemp(prefix="sr-mcp-session.")
export = os.path.join(top, "exports")
os.mkdir(export)
p = subprocess.Popen([server, "--state-dir", os.path.join(top, "state"), "--host-dir", export],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
nid = 0
failed = []

def rpc(method, params):
    global nid
    nid += 1
    try:
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": nid, "method": method, "params": params}) + "\n")
        p.stdin.flush()
    except BrokenPipeError:
        pass  # it is gone: its exit status is read below
    while True:
        line = p.stdout.readline()
        if not line:
            try:
                p.stdin.close()
            except BrokenPipeError:
                pass
            sys.exit(f"mcp-session: sr-mcp ended before it answered {method} (exit {p.wait()})")
        m = json.loads(line)
        if m.get("id") == nid:
            return m

def call(name, args, show=None):
    print(f"\n> {name} {json.dumps(show or args)}")
    m = rpc("tools/call", {"name": name, "arguments": args})
    if "error" in m:
        print("  error", m["error"]["code"], m["error"]["message"])
        failed.append(name)
        return {}
    r = m["result"]
    if r.get("isError"):
        failed.append(name)
    for c in r["content"]:
        if c["type"] == "text":
            print("\n".join("  " + l for l in c["text"].rstrip("\n").split("\n")))
        elif c["type"] == "image":
            print(f"  [{c['mimeType']} image block, {len(base64.b64decode(c['data']))} bytes]")
        else:
            print(f"  [{c['type']}: {c.get('name', '')}]")
    return r.get("structuredContent") or {}

try:
    init = rpc("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "readme", "version": "1"}})["result"]
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    print(f"# {init['serverInfo']['name']} {init['serverInfo']['version']}, protocol {init['protocolVersion']}")
    csv = "month,sales\njan,120\nfeb,95\nmar,143\napr,160\n"
    ws = "sales"
    call("write_file", {"workspace_id": ws, "path": "sales.csv", "content": csv},
         {"workspace_id": ws, "path": "sales.csv", "content": "month,sales\\njan,120\\n..."})
    call("run_code", {"language": "python", "workspace_id": ws, "code":
         "import pandas as pd\ndf = pd.read_csv('sales.csv')\n"
         "print(len(df), 'months, total', df.sales.sum(), 'best', df.month[df.sales.idxmax()])"},
         {"language": "python", "workspace_id": ws, "code": "import pandas as pd\\ndf = pd.read_csv('sales.csv') ... print(len(df), 'months, total', df.sales.sum(), ...)"})
    call("run_code", {"language": "python", "workspace_id": ws, "code":
         "import csv, matplotlib.pyplot as plt\nrows = list(csv.DictReader(open('sales.csv')))\n"
         "plt.bar([r['month'] for r in rows], [int(r['sales']) for r in rows])\nplt.title('sales')"},
         {"language": "python", "workspace_id": ws, "code": "import matplotlib.pyplot as plt ... plt.bar(...)"})
    call("list_files", {"workspace_id": ws})
    call("export_workspace", {"workspace_id": ws})
finally:
    p.stdin.close()
    p.wait()
    shutil.rmtree(top, ignore_errors=True)
if failed:
    sys.exit(f"mcp-session: {len(failed)} call(s) failed: {', '.join(failed)}")
