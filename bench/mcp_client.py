"""sr-mcp over stdio for the benches (mcp.py, session.py): one server with
its own state directory, asked one JSON-RPC request at a time."""
import json, os, subprocess


class Server:
    def __init__(self, state):
        self.p = subprocess.Popen(["sr-mcp", "--state-dir", state], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, env=dict(os.environ))
        self.nid = 0

    def ask(self, method, params):
        self.nid += 1
        msg = {"jsonrpc": "2.0", "id": self.nid, "method": method, "params": params}
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())
