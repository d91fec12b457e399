// packages.mjs - install_packages through the official SDK v1 client
// (which checks each structuredContent against the tool's outputSchema),
// under each network policy: none (refused with the how-to, except pip
// from a local directory of wheels this test builds with the standard
// library), install (npm from the npm registry; the runs that follow stay
// offline) and full (runs share the host's network namespace). Package
// specs that carry options, URLs or paths are refused. The installers read
// nothing the workspace's code planted (a pip module, site hooks, pip.conf,
// .npmrc, a git program, package.json dependencies that are no registry
// version), each with a control that shows the plant works on a naive
// installer.
import { mkdtempSync, readlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, skip, done, diag, server, stateDir, sc, text, stdioClient } from './tap.mjs';

// Two wheels, made the way a wheel is: a zip of the module and
// NAME-VERSION.dist-info/{METADATA,WHEEL,RECORD}. srtop depends on srdemo.
const wheels = mkdtempSync(`${process.env.TMPDIR || '/tmp'}/sr-wheels.`);
const mk = spawnSync('python3', ['-c', `
import base64, hashlib, sys, zipfile
def wheel(d, name, ver, module, requires=()):
    meta = f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {ver}\\n" + "".join(f"Requires-Dist: {r}\\n" for r in requires)
    info = f"{name}-{ver}.dist-info"
    files = {f"{name}.py": module, f"{info}/METADATA": meta,
             f"{info}/WHEEL": "Wheel-Version: 1.0\\nGenerator: sr-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"}
    rec = ""
    for p, c in files.items():
        h = base64.urlsafe_b64encode(hashlib.sha256(c.encode()).digest()).rstrip(b"=").decode()
        rec += f"{p},sha256={h},{len(c.encode())}\\n"
    files[f"{info}/RECORD"] = rec + f"{info}/RECORD,,\\n"
    with zipfile.ZipFile(f"{d}/{name}-{ver}-py3-none-any.whl", "w") as z:
        for p, c in files.items():
            z.writestr(p, c)
wheel(sys.argv[1], "srdemo", "1.2.3", "VALUE = 42\\n")
wheel(sys.argv[1], "srtop", "0.1", "import srdemo\\nDOUBLE = 2 * srdemo.VALUE\\n", ["srdemo>=1"])
# a source distribution whose setup.py would leave a mark in the workspace
import io, tarfile
setup = "open('/workspace/SETUP-RAN', 'w').write('x')\\nfrom setuptools import setup\\nsetup(name='srsdist', version='1.0')\\n"
with tarfile.open(f"{sys.argv[1]}/srsdist-1.0.tar.gz", "w:gz") as t:
    for name, body in (("srsdist-1.0/setup.py", setup), ("srsdist-1.0/PKG-INFO", "Metadata-Version: 2.1\\nName: srsdist\\nVersion: 1.0\\n")):
        data = body.encode()
        info = tarfile.TarInfo(name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
`, wheels], { encoding: 'utf8' });
ok(mk.status === 0, 'two wheels built with the standard library', mk.stderr);

async function start(env) {
  const { client, call } = await stdioClient(Client, StdioClientTransport, stateDir(), 'sr-test-packages', env, 180000);
  const { tools } = await client.listTools();
  const hint = (n) => tools.find((t) => t.name === n)?.annotations?.openWorldHint;
  const info = sc(await call('sandbox_info', {}));
  return { client, call, hint, info };
}
// A refused argument: an isError result that says so (input validation,
// spec 2025-11-25), or null when the call got past the arguments.
async function refusal(p) {
  const r = await p;
  return r.isError && /^Invalid arguments/.test(text(r)) ? { message: text(r) } : null;
}
const run = async (call, ws, language, code) => sc(await call('run_code', { workspace_id: ws, language, code }));
const hostNet = readlinkSync('/proc/self/ns/net');
const netNs = (call, ws) => run(call, ws, 'bash', 'readlink /proc/self/ns/net');
// A connection out, from Python: "connected" or why not.
const CONNECT = 'import socket\ntry:\n    socket.create_connection(("registry.npmjs.org", 443), timeout=10)\n' +
  '    print("connected")\nexcept Exception as e:\n    print("refused:", type(e).__name__, e)\n';

// The options: a bad policy or wheel directory is a usage error (100).
for (const [args, env, re, desc] of [
  [['--network', 'sometimes'], {}, /expected none, install, allow or full/, '--network sometimes'],
  [[], { SR_MCP_NETWORK: 'open' }, /SR_MCP_NETWORK: expected none, install, allow or full/, 'SR_MCP_NETWORK=open'],
  [['--pip-find-links', `${wheels}/none`], {}, /--pip-find-links: not a directory/, '--pip-find-links to nowhere']]) {
  const p = spawnSync(server, args, { input: '', encoding: 'utf8', env: { ...process.env, ...env } });
  ok(p.status === 100 && re.test(p.stderr), `${desc}: exit 100 naming the option`, p.status, p.stderr);
}

// --- none: install_packages says how the administrator allows it ---
let s = await start({});
is(s.info.network, 'none', 'none: sandbox_info says network none');
is(s.hint('install_packages'), false, 'none: install_packages openWorldHint false');
is(s.hint('run_code'), false, 'none: run_code openWorldHint false');
let r = await s.call('install_packages', { workspace_id: 'p-none', manager: 'npm', packages: ['is-number@7.0.0'] });
ok(r.isError && /--network install/.test(text(r)) && /"SR_MCP_NETWORK": "install"/.test(text(r)) &&
  /claude_desktop_config/.test(text(r)), 'none: npm install refused, saying how to allow it (option, variable, config line)', text(r));
r = await s.call('install_packages', { workspace_id: 'p-none', manager: 'pip', packages: ['requests==2.31.0'] });
ok(r.isError && /--pip-find-links/.test(text(r)), 'none: pip install refused, naming --pip-find-links too', text(r));
r = await s.call('list_jobs', {});
ok(!(sc(r).jobs || []).length, 'none: nothing was queued', text(r));
is((await netNs(s.call, 'p-none')).stdout?.trim() !== hostNet, true, 'none: a run has a network namespace of its own');

// Specs: what is accepted reaches the policy check (isError above, not an
// invalid argument); options, URLs, paths, files, aliases are invalid.
for (const [m, spec] of [['pip', 'numpy'], ['pip', 'requests[socks,security]>=2.0,<3'], ['pip', 'pkg.name_x-y~=1.4.2'],
  ['pip', 'a===1.0+local'], ['npm', 'lodash'], ['npm', '@types/node@^20.1.0'], ['npm', 'lodash.merge@~4.6'], ['npm', 'react@latest']]) {
  const e = await refusal(s.call('install_packages', { workspace_id: 'p-none', manager: m, packages: [spec] }));
  is(e, null, `${m} spec accepted: ${spec}`);
}
for (const [m, spec] of [['pip', '--index-url=http://example.com/'], ['pip', '-r'], ['pip', '-e.'],
  ['pip', 'git+https://example.com/x.git'], ['pip', 'x @ https://example.com/x.whl'], ['pip', '../x'],
  ['pip', '/etc/passwd'], ['pip', 'x.whl'], ['pip', 'x; python_version>"3"'], ['pip', 'x==1 --pre'], ['pip', ''],
  ['npm', '--registry=http://example.com'], ['npm', 'file:../x'], ['npm', 'user/repo'], ['npm', 'x@npm:evil'],
  ['npm', 'x@git+https://example.com/x'], ['npm', 'x@file:/etc'], ['npm', './x'], ['npm', 'x.tgz'], ['npm', 'Upper'],
  ['npm', 'x@http://example.com/x.tgz']]) {
  const e = await refusal(s.call('install_packages', { workspace_id: 'p-none', manager: m, packages: [spec] }));
  ok(e && /package spec/.test(e.message), `${m} spec refused as an invalid argument: ${JSON.stringify(spec)}`, e?.message);
}
let e = await refusal(s.call('install_packages', { workspace_id: 'p-none', manager: 'cargo', packages: ['x'] }));
ok(e && /manager/.test(e.message), 'an unknown manager: an invalid argument', e?.message);
e = await refusal(s.call('install_packages', { workspace_id: 'p-none', manager: 'pip', packages: [] }));
ok(e && /packages/.test(e.message), 'no packages: an invalid argument', e?.message);
e = await refusal(s.call('install_packages', { workspace_id: '../x', manager: 'pip', packages: ['x'] }));
ok(e && /workspace_id/.test(e.message), 'a bad workspace_id: an invalid argument', e?.message);
await s.client.close();

// --- none, with the administrator's wheels: pip works offline ---
s = await start({ SR_MCP_PIP_FIND_LINKS: wheels });
is(s.info.pip_local_wheels, true, 'find-links: sandbox_info says pip uses local wheels');
r = await s.call('install_packages', { workspace_id: 'p-pip', manager: 'pip', packages: ['srtop==0.1'] });
const pk = sc(r).packages || [];
ok(!r.isError && sc(r).status === 'succeeded', 'find-links: pip installs srtop from the local wheels', text(r));
ok(pk.some((p) => p.name === 'srtop' && p.version === '0.1' && p.requested) &&
  pk.some((p) => p.name === 'srdemo' && p.version === '1.2.3' && !p.requested),
  'the result lists srtop 0.1 (requested) and its dependency srdemo 1.2.3, read from the dist-info', pk);
is(sc(r).network, false, 'the install step had no network');
ok((sc(await s.call('list_jobs', {})).jobs || []).some((j) => j.job_id === sc(r).job_id), 'the install is a job list_jobs shows');
let out = await run(s.call, 'p-pip', 'python', 'import srtop\nprint(srtop.DOUBLE)');
is(out.stdout, '84\n', 'run_code in the workspace imports the installed package');
out = await run(s.call, 'p-other', 'python', 'import srtop');
ok(out.status === 'failed' && /ModuleNotFoundError/.test(out.stderr), 'another workspace does not see it (control)', out);
r = await s.call('install_packages', { workspace_id: 'p-pip', manager: 'pip', packages: ['nosuchpkg'] });
ok(r.isError && sc(r).status === 'failed' && /No matching distribution|Could not find/.test(sc(r).log || ''),
  'a package that is not there: isError, status failed, pip\'s log says why', text(r));
// wait_s 0: the answer comes at once with the job, which cancel_job stops
r = await s.call('install_packages', { workspace_id: 'p-cancel', manager: 'pip', packages: ['srdemo'], wait_s: 0 });
ok(!r.isError && /^(queued|running)$/.test(sc(r).status) && /job_status/.test(sc(r).hint || ''),
  'wait_s 0: the install is still going, and the hint names job_status', text(r));
const c = sc(await s.call('cancel_job', { job_id: sc(r).job_id }));
const st = sc(await s.call('job_status', { job_id: sc(r).job_id, wait_s: 30 }));
ok(c.status === 'cancelled' || st.status === 'cancelled', 'cancel_job stops the install', [c, st]);
r = await s.call('install_packages', { workspace_id: 'p-pip', manager: 'pip', packages: ['srsdist'] });
ok(r.isError && /No matching distribution|Could not find/.test(sc(r).log || ''), 'a source distribution is not taken (wheels only)', text(r));
out = await run(s.call, 'p-pip', 'bash', 'ls /workspace');
ok(out.status === 'succeeded' && !/SETUP-RAN/.test(out.stdout), "... and its setup.py never ran", out.stdout);
out = sc(await s.call('run_code', { workspace_id: 'p-pip', language: 'python', env: { PYTHONPATH: '/tmp' },
  code: 'import os\nprint(os.environ["PYTHONPATH"])' }));
is(out.stdout, '/tmp\n', "a PYTHONPATH in the call's env wins over the runner's");
r = await s.call('install_packages', { workspace_id: 'p-pip', manager: 'npm', packages: ['is-number'] });
ok(r.isError && /--network install/.test(text(r)), 'find-links does not open the network to npm', text(r));

// The installer reads nothing the workspace's code wrote. The code plants
// a pip module, site hooks and pip configuration where an installer that
// ran `python -m pip` in /workspace, or read its configuration, would take
// them; each leaves a mark in /workspace if it runs.
const PLANT_PIP = `cd /workspace
mark='import os; open("/workspace/PWNED-" + os.path.basename(__file__), "w").write("ran")'
mkdir -p pip .config/pip .sr/pip
echo "$mark" > pip/__init__.py; echo "$mark" > pip/__main__.py
echo "$mark" > sitecustomize.py; echo "$mark" > usercustomize.py
printf '[global]\nindex-url = http://127.0.0.1:9/\nno-index = true\nfind-links = /nowhere\n' > pip.conf
cp pip.conf .config/pip/pip.conf; cp pip.conf .sr/pip/pip.conf; echo planted`;
out = await run(s.call, 'p-evil', 'bash', PLANT_PIP);
is(out.stdout, 'planted\n', 'pip attack: the code plants a pip module, site hooks and pip.conf in /workspace');
out = await run(s.call, 'p-evil', 'bash', 'cd /workspace && python3 -m pip --version >/dev/null 2>&1; ls PWNED-* && rm -f PWNED-*');
like(out.stdout, /PWNED-__init__\.py/, 'control: `python -m pip` run in /workspace imports the planted module', out);
r = await s.call('install_packages', { workspace_id: 'p-evil', manager: 'pip', packages: ['srtop==0.1'] });
ok(!r.isError && sc(r).status === 'succeeded', 'pip attack: the install succeeds (no planted configuration was read)', text(r));
out = await run(s.call, 'p-evil', 'bash', 'ls -a /workspace');
ok(out.status === 'succeeded' && !/PWNED/.test(out.stdout), 'pip attack: no planted module or hook ran in the install', out.stdout);
await s.client.close();

// --- install: the install step has the network, runs do not ---
s = await start({ SR_MCP_NETWORK: 'install' });
is(s.info.network, 'install', 'install: sandbox_info says network install');
is(s.hint('install_packages'), true, 'install: install_packages openWorldHint true');
is(s.hint('run_code'), false, 'install: run_code openWorldHint still false');
// npm's own look at the registry, with the configuration npm has here
const reach = spawnSync('npm', ['view', 'is-number@7.0.0', 'version'], { encoding: 'utf8', timeout: 60000 });
if (reach.status !== 0) {
  skip('install: npm install from the registry', 'the npm registry is not reachable from here');
  skip('install: run_code requires the installed package', 'the npm registry is not reachable from here');
} else {
  r = await s.call('install_packages', { workspace_id: 'p-npm', manager: 'npm', packages: ['is-number@7.0.0'] });
  ok(!r.isError && (sc(r).packages || []).some((p) => p.name === 'is-number' && p.version === '7.0.0' && p.requested) &&
    sc(r).network === true, 'install: npm installs is-number@7.0.0 from the registry, with the network', text(r));
  out = await run(s.call, 'p-npm', 'javascript', 'const n = require("is-number"); console.log(n(5), n("x"))');
  is(out.stdout, 'true false\n', 'install: run_code in the workspace requires it');

  // npm: a project .npmrc naming a git program of the code's and a
  // registry that answers nothing, and a package.json whose dependencies
  // are a git URL (which runs the configured git) and a local path.
  const PLANT_NPM = `cd /workspace
printf '#!/bin/sh\\ntouch /workspace/PWNED-git\\nexit 1\\n' > evil-git; chmod +x evil-git
printf 'git=/workspace/evil-git\\nregistry=http://127.0.0.1:9/\\n' > .npmrc
mkdir -p .sr/npm; cp .npmrc .sr/npm/.npmrc
printf '{"name":"mine","private":true,"dependencies":{"sr-evil":"git+https://example.com/x.git","sr-file":"file:/etc","is-number":"7.0.0"}}' > package.json
echo planted`;
  out = await run(s.call, 'p-npm-evil', 'bash', PLANT_NPM);
  is(out.stdout, 'planted\n', 'npm attack: the code plants .npmrc, a git program and git/file dependencies');
  out = await run(s.call, 'p-npm-evil', 'bash', 'cd /workspace && npm config get registry');
  is(out.stdout, 'http://127.0.0.1:9/\n', 'control: npm run in /workspace reads the planted .npmrc', out);
  r = await s.call('install_packages', { workspace_id: 'p-npm-evil', manager: 'npm', packages: ['is-odd@3.0.1'] });
  ok(!r.isError && sc(r).status === 'succeeded', 'npm attack: the install succeeds (the planted registry was not used)', text(r));
  like(sc(r).hint || '', /left out.*sr-evil, sr-file/, 'the dependencies that are no registry version are named as left out', sc(r).hint);
  out = await run(s.call, 'p-npm-evil', 'bash', 'ls -a /workspace');
  ok(out.status === 'succeeded' && !/PWNED/.test(out.stdout), 'npm attack: the planted git program never ran', out.stdout);
  const names = (sc(r).packages || []).map((p) => `${p.name}@${p.version}`);
  ok(names.includes('is-odd@3.0.1') && names.includes('is-number@7.0.0'),
    "the earlier registry dependency is installed again beside the new package", names);
  out = await run(s.call, 'p-npm-evil', 'javascript',
    'const fs = require("fs"); const p = JSON.parse(fs.readFileSync("/workspace/package.json"));' +
    'console.log(p.name, Object.keys(p.dependencies).sort().join(","), require("is-odd")(3), require("is-number")(1))');
  is(out.stdout, 'mine is-number,is-odd true true\n',
    "package.json keeps the user's fields, its dependencies are what was installed, and both load", out);
  // a package.json whose "dependencies" is no object is taken as none
  await run(s.call, 'p-npm-odd', 'bash', `printf '{"dependencies":["x", 1]}' > /workspace/package.json`);
  r = await s.call('install_packages', { workspace_id: 'p-npm-odd', manager: 'npm', packages: ['is-number@7.0.0'] });
  ok(!r.isError && sc(r).status === 'succeeded', 'a package.json whose dependencies are an array: the install goes on', text(r));
}
out = await run(s.call, 'p-npm', 'python', CONNECT);
like(out.stdout, /^refused:/, 'install: a run cannot connect out (the registry the install reached)');
ok((await netNs(s.call, 'p-npm')).stdout?.trim() !== hostNet, 'install: a run has a network namespace of its own');
await s.client.close();

// --- full: runs share the host's network namespace ---
s = await start({ SR_MCP_NETWORK: 'full' });
is(s.info.network, 'full', 'full: sandbox_info says network full');
is(s.hint('run_code'), true, 'full: run_code openWorldHint true');
is(s.hint('install_packages'), true, 'full: install_packages openWorldHint true');
is((await netNs(s.call, 'p-full')).stdout?.trim(), hostNet, "full: a run is in the host's network namespace");
out = await run(s.call, 'p-full', 'python', 'import socket\nsocket.socket(socket.AF_INET, socket.SOCK_STREAM).close()\nprint("socket")');
is(out.stdout, 'socket\n', 'full: a run may make an AF_INET socket');
await s.client.close();
diag(`host network namespace: ${hostNet}`);
done();
