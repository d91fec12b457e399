// apt.mjs - install_packages with manager apt: figlet from Debian's
// archive into workspace A's layer over the Debian test environment.
// Controls first: figlet is absent in A before the install (so a later
// success is the install's), and apt works at all (the refusals below
// are then the checks', not a broken apt).
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, done, server, stateDir, serverEnv, sc, text, rootfsOrSkip } from './tap.mjs';
import { checkDockerfile } from './dockerfile.mjs';

const D = rootfsOrSkip('apt into a workspace layer');
const state = stateDir();
const hostDir = realpathSync(mkdtempSync(join(process.env.TMPDIR || tmpdir(), 'sr-apt-export.')));
const client = new Client({ name: 'sr-test-apt', version: '1' });
await client.connect(new StdioClientTransport({ command: server, stderr: 'pipe',
  args: ['--environment', `deb12=${D}`, '--network', 'install', '--host-dir', hostDir], env: serverEnv(state) }));
const call = (name, a) => client.callTool({ name, arguments: a }, undefined, { timeout: 600000 });
const bash = (ws, code, env = 'deb12') => call('run_code', { language: 'bash', workspace_id: ws, code,
  ...(env ? { environment: env } : {}) });
const apt = (ws, packages, env = 'deb12') => call('install_packages', { workspace_id: ws, manager: 'apt',
  packages, timeout_s: 500, ...(env ? { environment: env } : {}) });
const which = 'command -v figlet; echo rc=$?';

let r = await bash('wsa', which);
ok(/rc=1/.test(sc(r).stdout), 'control: before the install, figlet is absent in A', text(r));
await bash('wsb', 'true');

r = await apt('wsa', ['figlet']);
is(sc(r).status, 'succeeded', 'apt installs figlet into workspace A');
if (sc(r).status !== 'succeeded') console.error(text(r).replace(/^/gm, '# '));
ok((sc(r).packages || []).some((p) => p.name === 'figlet' && p.requested && p.version),
  'the result lists figlet, requested, with its version', sc(r).packages);
ok((sc(r).executables || []).includes('figlet') && (sc(r).executables || []).includes('figlet-figlet'),
  'the result names its programs (figlet-figlet, and figlet, its update-alternatives link)', sc(r).executables);
like(text(r), /no maintainer\s+script ran/, 'the result says no maintainer script ran');
is(sc(r).environment, 'deb12', 'the result names the environment');
const job = sc(r).job_id;
const sizeRec = join(state, 'ws-layer', 'wsa.size');
const size = existsSync(sizeRec) ? readFileSync(sizeRec, 'utf8') : '';
ok(/^\d+\n$/.test(size) && +size > 100 * 1024, `the install recorded its layer's size (WS.size: ${size.trim()} bytes)`, size);

r = await bash('wsa', 'figlet -f standard sr; echo rc=$?');
ok(/\|/.test(sc(r).stdout) && /rc=0/.test(sc(r).stdout), 'a later run in A (deb12) runs figlet', text(r));
r = await bash('wsa', 'dpkg -s figlet; echo rc=$?');
ok(/Package: figlet/.test(sc(r).stdout) && /Status: install ok unpacked/.test(sc(r).stdout),
  'dpkg -s figlet in A knows it (install ok unpacked)', text(r));
r = await bash('wsa', 'dpkg -s libc6 | grep Status');
like(sc(r).stdout, /install ok installed/, 'the environment\'s own packages are still known to dpkg in A');
r = await bash('wsa', 'touch /usr/bin/x 2>&1; echo rc=$?; ls -l /usr/bin/figlet-figlet');
ok(/rc=1/.test(sc(r).stdout), 'the layer is read-only in a run', text(r));
const sess = (ws) => call('run_code', { language: 'python', workspace_id: ws, environment: 'deb12',
  session: true, code: 'import shutil\nprint("which", shutil.which("figlet"))' });
r = await sess('wsa');
like(sc(r).stdout, /which \/usr\/bin\/figlet/, 'a python session of A in deb12 finds figlet too');
r = await sess('wsb');
like(sc(r).stdout, /which None/, 'a session of B does not');
r = await bash('wsb', which + '; dpkg -s figlet >/dev/null 2>&1; echo dpkg=$?');
ok(/rc=1/.test(sc(r).stdout) && /dpkg=1/.test(sc(r).stdout), 'a run in workspace B finds no figlet', text(r));
r = await bash('wsa', which, null);
ok(/rc=1/.test(sc(r).stdout), 'a run of A in the default environment finds no figlet', text(r));

// what the install reached: sr-net's records of its job
const net = join(state, 'made', `${job}.net`);
const recs = existsSync(net) ? readFileSync(net, 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : [];
ok(recs.length > 0 && recs.every((c) => ['deb.debian.org', 'security.debian.org'].includes(c.host)),
  'the install reached only the mirrors of the environment\'s sources', recs.map((c) => c.host));

r = await apt('wsa', ['figlet']);
ok(sc(r).status === 'succeeded' && /nothing to install/.test(sc(r).log || ''),
  'a second install of figlet in A finds it installed (the layer\'s dpkg status)', text(r));

// the layer belongs to the root it was made for (STATE/ws-layer/WS.root):
// recorded as another's, it is not laid over deb12, nor installed into
const rec = join(state, 'ws-layer', 'wsa.root');
is(readFileSync(rec, 'utf8'), realpathSync(D), 'the layer is recorded as deb12\'s root\'s');
writeFileSync(rec, '/srv/another-root');
r = await bash('wsa', which);
ok(/rc=1/.test(sc(r).stdout), 'recorded as another root\'s, the layer is not laid over deb12', text(r));
r = await apt('wsa', ['sl']);
ok(r.isError && /another environment/.test(text(r)), 'and an apt install for deb12 into it is refused', text(r));
writeFileSync(rec, realpathSync(D));
r = await bash('wsa', which);
ok(/rc=0/.test(sc(r).stdout), 'control: recorded as deb12\'s again, A finds figlet', text(r));

// refusals
r = await apt('wsc', ['figlet'], null);
ok(r.isError && /deb12/.test(text(r)) && /environment/.test(text(r)),
  'the host (default) environment refuses apt, naming the environment that has it', text(r));
for (const bad of ['-o foo', 'figlet;id', '../x', '-oDir=/tmp', 'figlet-', 'FIGLET', 'x.deb', 'figlet/sid', 'fig*']) {
  r = await apt('wsc', [bad]);
  ok(r.isError && /not a package spec/.test(text(r)), `the name '${bad}' is refused`, text(r));
}
r = await call('install_packages', { workspace_id: 'wsc', manager: 'pip', packages: ['six'], environment: 'deb12' });
ok(r.isError && /apt only/.test(text(r)), 'environment is refused for pip', text(r));
ok(!existsSync(join(state, 'ws-layer', 'wsc')), 'no refused call made a layer for C');
r = await apt('wsc', ['sr-no-such-package-xyz']);
ok(r.isError && sc(r).failure === 'no_such_package' && /Unable to locate package sr-no-such-package-xyz/.test(text(r)),
  'a package the archive lacks: apt\'s reason', text(r));

// The Dockerfile of A's export installs the layer's packages again; B's,
// with no layer, does not (the control).
const dockerfile = async (ws) => {
  const x = sc(await call('export_workspace', { workspace_id: ws, environment: 'deb12' }));
  return x.dockerfile && existsSync(x.dockerfile) ? readFileSync(x.dockerfile, 'utf8') : '';
};
const dfa = await dockerfile('wsa');
ok(/^RUN apt-get update && .*apt-get install -y --no-install-recommends( [a-z0-9.+-]+)* figlet( |$)/m.test(dfa),
  'the export of A: its Dockerfile installs figlet with apt', dfa);
is(checkDockerfile(dfa).errors.join('; '), '', 'and it parses');
const dfb = await dockerfile('wsb');
ok(dfb && !/figlet/.test(dfb), 'control: the export of B (no layer) names no figlet', dfb);
r = await call('delete_workspace', { workspace_id: 'wsa' });
ok(!r.isError, 'delete_workspace A', text(r));
ok(!existsSync(join(state, 'ws-layer', 'wsa')) && !existsSync(join(state, 'ws-layer', 'wsa.root')) &&
  !existsSync(sizeRec), 'deleting A deleted its layer and its records', readdirSync(join(state, 'ws-layer')));
r = await bash('wsa', which);
ok(/rc=1/.test(sc(r).stdout), 'a new workspace A has no figlet', text(r));

// two installs into one workspace at once (the installer's lock on the
// layer serializes them): both packages there, dpkg's status whole
await bash('wsd', 'true');
const both = await Promise.all([apt('wsd', ['figlet']), apt('wsd', ['sl'])]);
ok(both.every((x) => sc(x).status === 'succeeded'), 'two apt installs into D at once both succeed',
  both.map(text).join('\n---\n'));
r = await bash('wsd', 'dpkg -s figlet sl | grep -c "^Status: install ok unpacked"; ' +
  'for p in figlet sl; do grep -c "^Package: $p$" /var/lib/dpkg/status; done; dpkg -l >/dev/null; echo rc=$?; ' +
  'dpkg -s libc6 | grep -c "install ok installed"');
is(sc(r).stdout, '2\n1\n1\nrc=0\n1\n', "then D has both, each once in dpkg's status, which dpkg still reads whole");
await client.close();

// the quota: an install whose unpacked size takes the workspace over it is refused
const state2 = stateDir();
const c2 = new Client({ name: 'sr-test-apt-quota', version: '1' });
await c2.connect(new StdioClientTransport({ command: server, stderr: 'pipe',
  args: ['--environment', `deb12=${D}`, '--network', 'install', '--workspace-quota', '300K'],
  env: serverEnv(state2) }));
r = await c2.callTool({ name: 'install_packages', arguments: { workspace_id: 'wsq', manager: 'apt',
  packages: ['figlet'], environment: 'deb12', timeout_s: 500 } }, undefined, { timeout: 600000 });
ok(r.isError && sc(r).failure === 'quota' && /over the workspace quota/.test(text(r)),
  'an install over the workspace quota (300K; figlet unpacks to 739 KiB) is refused, saying so', text(r));
const left = join(state2, 'ws-layer', 'wsq');
ok(existsSync(left) && !existsSync(join(left, 'usr')), 'nothing was unpacked into its layer');
await c2.close();
done();
