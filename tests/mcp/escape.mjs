// escape.mjs - escape attempts through run_code, the way a model's code
// arrives: each probe asserts what it got (errno, absence, unchanged
// bytes), and a control run of the same probe on the host shows it would
// succeed without the sandbox. Every attempt of the escape suite
// (tests/escape/) is made through run_code by tests/escape/90-run-code.t.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, mkdirSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, done, server, stateDir, serverEnv, sleep } from './tap.mjs';

// A fake home with a key and a secret in the server's environment.
const home = mkdtempSync(`${process.env.TMPDIR || '/tmp'}/sr-home.`);
mkdirSync(`${home}/.ssh`);
writeFileSync(`${home}/.ssh/id_rsa`, 'PRIVATE-KEY\n');
const c = new Client({ name: 'sr-test-escape', version: '1' });
await c.connect(new StdioClientTransport({ command: server, args: [], stderr: 'pipe',
  env: serverEnv(stateDir(), { HOME: home, SECRET_TOKEN: 'hunter2' }) }));
const T = { timeout: 120000 };
const py = async (code, extra = {}) => (await c.callTool({ name: 'run_code', arguments: { language: 'python', code, ...extra } }, undefined, T)).structuredContent;
const host = (code) => execFileSync('python3', ['-c', code], { env: { ...process.env, HOME: home, SECRET_TOKEN: 'hunter2' } }).toString();

const probe = `
import os, sys, socket, errno
def attempt(name, f):
    try:
        r = f(); print(name, "OK", r)
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))
attempt("key", lambda: open(os.path.join(sys.argv[1], ".ssh/id_rsa")).read().strip())
attempt("shadow", lambda: len(open("/etc/shadow").read()))
attempt("usr", lambda: open("/usr/sr-escape-test", "w").write("x"))
attempt("tcp", lambda: socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=2).close())
attempt("vsock", lambda: socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM).close())
attempt("init-environ", lambda: len(open("/proc/1/environ", "rb").read()))
print("env", "SECRET" if any("hunter2" in v for v in os.environ.values()) else "clean")
print("uid", os.getuid(), "caps", open("/proc/self/status").read().split("CapEff:")[1].split()[0])
`;
// A listener on the host's loopback, which the sandbox must not reach.
const srv = (await import('node:net')).createServer((s) => { hits++; s.destroy(); });
let hits = 0;
await new Promise((res) => srv.listen(0, '127.0.0.1', res));
const port = srv.address().port;

const hostOut = host(probe.replace('sys.argv[1]', `"${home}"`).replace('int(sys.argv[2])', String(port)));
like(hostOut, /key OK PRIVATE-KEY/, 'control: on the host the probe reads the key');
like(hostOut, /tcp OK/, 'control: on the host it reaches the loopback listener');
for (let i = 0; i < 40 && hits === 0; i++) await sleep(50);   // the accept comes later
is(hits, 1, '... and the listener saw it');
like(hostOut, /env SECRET/, "control: on the host it sees the server's secret");
hits = 0;
const r = await py(probe, { args: [home, String(port)] });
const out = r.stdout;
like(out, /^key ENOENT/m, "run_code: the user's key is not there (ENOENT)");
like(out, /^shadow ENOENT/m, 'run_code: /etc/shadow is not there');
like(out, /^usr (EROFS|EACCES)/m, 'run_code: /usr is read-only');
like(out, /^tcp (ENETUNREACH|ECONNREFUSED|EPERM|EACCES)/m, "run_code: the host's loopback is not reached");
is(hits, 0, '... and the listener saw no connection');
like(out, /^vsock (EAFNOSUPPORT|EPERM|EACCES)/m, 'run_code: no vsock');
like(out, /^init-environ (EACCES|EPERM)/m, "run_code: PID 1's environment is not readable");
like(out, /^env clean/m, "run_code: none of the server's environment reaches the code");
like(out, /^uid \d+ caps 0000000000000000/m, 'run_code: no capabilities');
// The workspace is the only writable place that lasts, and it is the run's own.
const ws = await py('open("/workspace/mine", "w").write("x"); import os; print(sorted(os.listdir("/workspace")))');
is(ws.stdout.trim(), "['mine', 'outputs']", 'run_code: /workspace holds only what the run wrote (and outputs/, for images)');
// A fork bomb and a memory balloon end in a result, and the next run works.
const bomb = await py('import os\nwhile True:\n    try: os.fork()\n    except OSError: pass', { timeout_s: 3 });
ok(['timed_out', 'killed', 'failed'].includes(bomb.status), `run_code: a fork bomb ends (${bomb.status}, ${bomb.reason})`);
const after = await py('print("alive")');
is(after.stdout, 'alive\n', '... and the next run works');
is(readFileSync(`${home}/.ssh/id_rsa`, 'utf8'), 'PRIVATE-KEY\n', "the user's key keeps its bytes");
srv.close();
await c.close();
done();
process.exit();
