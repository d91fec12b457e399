// session-packages.mjs - a session and the files of its workspace:
// install_packages in a workspace whose session is live makes the new
// packages importable in it, without a restart (pip from a local wheel
// this test builds; npm from the registry where it is reachable); the
// session first fails to import each, as a model would find out it needs
// it: a look that must not stay cached. What a session call writes is in
// the workspace when the call ends (its result lists it, read_file reads
// it), what a run writes meanwhile is seen by the session, and a file past
// the workspace's quota is refused to the session too (ENOSPC), as are
// files that together pass it, the session living on.
import { mkdtempSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, skip, done, stateDir, sc, text, stdioClient } from './tap.mjs';

// a wheel: a zip of the module and its dist-info
const wheels = mkdtempSync(`${process.env.TMPDIR || '/tmp'}/sr-wheels.`);
const mk = spawnSync('python3', ['-c', `
import sys, zipfile
info = "srlive-2.0.dist-info"
with zipfile.ZipFile(sys.argv[1] + "/srlive-2.0-py3-none-any.whl", "w") as z:
    z.writestr("srlive.py", "VALUE = 'fresh'\\n")
    z.writestr(info + "/METADATA", "Metadata-Version: 2.1\\nName: srlive\\nVersion: 2.0\\n")
    z.writestr(info + "/WHEEL", "Wheel-Version: 1.0\\nGenerator: sr-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
    z.writestr(info + "/RECORD", "")
`, wheels], { encoding: 'utf8' });
ok(mk.status === 0, 'a wheel built with the standard library', mk.stderr);

const start = (env) => stdioClient(Client, StdioClientTransport, stateDir(), 'sr-test-session-packages', env, 180000);
const sess = (s, language, code) => s.call('run_code', { language, workspace_id: 'pk', session: true, code });

let s = await start({ SR_MCP_PIP_FIND_LINKS: wheels, SR_MCP_WORKSPACE_QUOTA: '8M' });
let r = await sess(s, 'python', 'n = 1\ntry:\n    import srlive\nexcept ImportError as e:\n    print(type(e).__name__)');
is(sc(r).stdout, 'ModuleNotFoundError\n', 'python: the package is not there yet', text(r));
r = await s.call('install_packages', { workspace_id: 'pk', manager: 'pip', packages: ['srlive'] });
ok(!r.isError && sc(r).status === 'succeeded', 'pip installs it while the session lives', text(r));
r = await sess(s, 'python', 'import srlive\n(srlive.VALUE, n)');
is(sc(r).stdout, "('fresh', 1)\n", 'the live session imports it, its state kept');
if (sc(r).stdout === '') console.log('# ' + sc(r).stderr.replace(/\n/g, '\n# '));
is(sc(r).session?.new, false, 'in the same session');

// the files: a session's writes are there at the end of its call
r = await sess(s, 'python', 'print(os.path.exists("ran.txt")) if "os" in dir() else None\nimport os\nopen("made.txt", "w").write("by the session")\nos.path.exists("ran.txt")');
is(sc(r).stdout, 'False\n', 'a file not there yet');
ok((sc(r).files || []).some((f) => f.path === 'made.txt'), "the call's result lists the file it wrote", JSON.stringify(sc(r).files));
r = await s.call('read_file', { workspace_id: 'pk', path: 'made.txt' });
like(text(r), /by the session/, 'read_file reads it while the session lives', text(r));
r = await s.call('run_code', { language: 'bash', workspace_id: 'pk', code: 'echo by-a-run > ran.txt' });
r = await sess(s, 'python', 'open("ran.txt").read()');
is(sc(r).stdout, "'by-a-run\\n'\n", 'the session reads what a run wrote after it looked', text(r));
// Past the workspace's quota, a session's writes fail as a run's do
// (ENOSPC: the quota's tmpfs, which the kernel caps), an unlinked file's
// too, and the session lives on (tests/89-mcp-session-disk.t tries the
// other ways to allocate).
r = await sess(s, 'python', 'import os\nf = open("big", "wb", buffering=0)\nos.remove("big")\ntry:\n    b = memoryview(b"x" * (9 << 20))\n    while b:\n        b = b[f.write(b):]\nexcept OSError as e:\n    print("refused", e.errno)\nf.close()');
like(sc(r).stdout, /refused 28/, 'a file past the workspace quota is refused (ENOSPC)', text(r) + sc(r).stderr);
r = await sess(s, 'python', 'n');
is(sc(r).stdout, '1\n', 'and the session lives on');
r = await sess(s, 'javascript', 'let m = 1\n{ const fs = require("fs"), fd = fs.openSync("big", "w"), b = Buffer.alloc(9 << 20); fs.unlinkSync("big")\n  try { for (let n = 0; n < b.length;) n += fs.writeSync(fd, b, n) } catch (e) { e.code } finally { fs.closeSync(fd) } }');
is(sc(r).stdout, "'ENOSPC'\n", 'a javascript session too (the second session of the workspace: through the first one\'s view)', text(r) + sc(r).stderr);
r = await sess(s, 'javascript', 'm');
is(sc(r).stdout, '1\n', 'and it lives on');

// The sum: files each under the quota, 12 MiB together past it: the
// kernel stops their sum (the old watch only ended the session after),
// and the session lives on with its state.
r = await sess(s, 'python', 'k = 7\ndone = 0\ntry:\n    for i in range(4):\n        open(f"part{i}", "wb").write(b"x" * (3 << 20)); done += 1\nexcept OSError as e:\n    print("refused", e.errno)');
ok(/refused 28/.test(sc(r).stdout), 'files that together pass the quota: the write past it is refused', text(r), sc(r).stderr, JSON.stringify(sc(r).session));
r = await sess(s, 'python', "('k' in dir(), done)");
ok(sc(r).stdout === '(True, 2)\n', 'the session lives on, its state kept', text(r), sc(r).stderr);
r = await s.call('run_code', { language: 'bash', workspace_id: 'pk', code: 'cat part* | wc -c; rm -f part*' });
ok(Number(sc(r).stdout) < 8 << 20, 'the parts written hold less than the quota', text(r));
await s.client.close();

s = await start({ SR_MCP_NETWORK: 'install' });
const reach = spawnSync('npm', ['view', 'is-number@7.0.0', 'version'], { encoding: 'utf8', timeout: 60000 });
if (reach.status !== 0) {
  skip('npm: a live session requires a package installed after it started', 'the npm registry is not reachable from here');
} else {
  r = await sess(s, 'javascript', 'let n = 1\ntry { require("is-number") } catch (e) { e.code }');
  is(sc(r).stdout, "'MODULE_NOT_FOUND'\n", 'javascript: the package is not there yet', text(r));
  r = await s.call('install_packages', { workspace_id: 'pk', manager: 'npm', packages: ['is-number@7.0.0'] });
  ok(!r.isError && sc(r).status === 'succeeded', 'npm installs it while the session lives', text(r));
  r = await sess(s, 'javascript', '[require("is-number")(5), n]');
  is(sc(r).stdout, '[ true, 1 ]\n', 'the live session requires it, its state kept', text(r));
if (sc(r).stdout === '') console.log('# ' + sc(r).stderr.replace(/\n/g, '\n# '));
}
await s.client.close();
done();
