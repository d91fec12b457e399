// export.mjs - export_workspace, import_files and the MCP resources through
// the official SDK v1 client (which checks each structuredContent against
// the tool's outputSchema): a round trip whose files come back identical,
// links planted by the sandboxed code archived as links and never read,
// every way out of the allowed host directories refused, hostile archives
// (.., absolute names, a link then a write through it, a hard link out,
// too many entries, a huge sparse file) refused or contained with the
// host untouched, and the resources read, a planted link refused there too.
import { mkdtempSync, writeFileSync, readFileSync, mkdirSync, existsSync, readdirSync, lstatSync, linkSync,
  readlinkSync, symlinkSync, statSync, chmodSync } from 'node:fs';
import { join, basename } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, skip, done, server, stateDir, serverEnv, sc, text } from './tap.mjs';
import { checkDockerfile } from './dockerfile.mjs';

const tmp = process.env.TMPDIR || '/tmp';
const state = stateDir();
const top = mkdtempSync(`${tmp}/sr-export.`);
process.on('exit', () => execFileSync('rm', ['-rf', top]));
// The user's files, outside every allowed directory.
const home = join(top, 'home');
mkdirSync(join(home, '.ssh'), { recursive: true });
const key = join(home, '.ssh/id_rsa');
const KEY = 'PRIVATE-KEY do not touch\n';
writeFileSync(key, KEY);
const outside = join(top, 'outside');
mkdirSync(outside);
const secret = join(outside, 'secret.txt');
const SECRET = 'SECRET-OUTSIDE do not copy\n';
writeFileSync(secret, SECRET);
const victim = join(outside, 'victim.txt');
writeFileSync(victim, 'victim\n');
// The allowed host directories.
const hostA = join(top, 'hostA'), hostB = join(top, 'hostB');
mkdirSync(hostA);
mkdirSync(hostB);
const listing = (d) => readdirSync(d).sort().join(',');
const outsideBefore = listing(outside), topBefore = ['home', 'hostA', 'hostB', 'outside'].join(',');
const hostUntouched = (desc) => {
  ok(readFileSync(key, 'utf8') === KEY && readFileSync(secret, 'utf8') === SECRET &&
    readFileSync(victim, 'utf8') === 'victim\n' && listing(outside) === outsideBefore &&
    listing(top) === topBefore, `${desc}: the host is untouched (key, outside directory, the allowed directories' parent)`,
  listing(outside), listing(top));
};

const connect = async (name, args, env = {}) => {
  const c = new Client({ name, version: '1' });
  await c.connect(new StdioClientTransport({ command: server, args, stderr: 'pipe',
    env: serverEnv(state, { HOME: home, ...env }) }));
  return c;
};
const T = { timeout: 180000 };
const caller = (c) => (name, args) => c.callTool({ name, arguments: args }, undefined, T);
const refused = (res, re, desc) => ok(res.isError && re.test(text(res)), desc, text(res));

// ---- the option and the variable ------------------------------------------------
{
  let p = spawnSync(server, ['--host-dir', 'relative/dir'], { input: '', encoding: 'utf8' });
  ok(p.status === 100 && /--host-dir: an absolute path is expected/.test(p.stderr), '--host-dir with a relative path: a usage error (100)', p.status, p.stderr);
  p = spawnSync(server, [], { input: '', encoding: 'utf8', env: { ...process.env, SR_MCP_HOST_DIRS: `${hostA}:rel` } });
  ok(p.status === 100 && /SR_MCP_HOST_DIRS: an absolute path is expected: 'rel'/.test(p.stderr), 'SR_MCP_HOST_DIRS with a relative entry: a usage error (100)', p.status, p.stderr);
  p = spawnSync(server, ['--help'], { encoding: 'utf8' });
  like(p.stdout, /--host-dir DIR/, '--help lists --host-dir');
}

// ---- no host directory: both tools say how to allow one ----------------------
{
  const c = await connect('sr-test-export-none', []);
  const call = caller(c);
  const { tools } = await c.listTools();
  const tool = (n) => tools.find((t) => t.name === n);
  ok(tool('export_workspace') && tool('import_files'), 'tools/list offers export_workspace and import_files');
  ok(tool('export_workspace').annotations?.readOnlyHint === false && tool('import_files').annotations?.destructiveHint === true &&
    tool('export_workspace').annotations?.openWorldHint === false, 'their annotations: export writes, import may replace files');
  await call('write_file', { workspace_id: 'none', path: 'x.txt', content: 'x' });
  refused(await call('export_workspace', { workspace_id: 'none' }), /--host-dir DIR.*SR_MCP_HOST_DIRS/, 'no --host-dir: export_workspace is an error that says how to allow a directory');
  refused(await call('import_files', { host_path: secret }), /--host-dir DIR.*SR_MCP_HOST_DIRS/, 'no --host-dir: import_files is an error that says how to allow a directory');
  ok(readdirSync(hostA).length === 0 && readdirSync(hostB).length === 0, 'no --host-dir: nothing written anywhere');
  const caps = c.getServerCapabilities();
  ok(caps.resources && caps.resources.listChanged === false, 'initialize: the resources capability');
  await c.close();
}

// ---- the round trip ------------------------------------------------------------
const client = await connect('sr-test-export', ['--host-dir', hostA, '--host-dir', hostB]);
const call = caller(client);
const src = 'exp-src';
let run = sc(await call('run_code', { language: 'bash', workspace_id: src, code: `
set -e
mkdir -p data/nested/deep empty 'with space'
printf 'a,b\\n1,2\\n' > data/nested/deep/b.csv
echo top > a.txt
echo 'in a dir with a space' > 'with space/f.txt'
printf '#!/bin/sh\\necho run\\n' > tool.sh; chmod 755 tool.sh
python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 4)' > data/bytes.bin
ln -s ${key} key
ln -s ${home}/.ssh sshdir
ln -s ~ myhome
ln -s /etc/passwd pw
ln -s data/nested rel
echo planted` }));
is(run.stdout, 'planted\n', 'run_code makes a tree with a nested directory and plants links to the key, the home and /etc/passwd');

// A tree as a map: path -> 'file:<base64>:<exec>', 'link:<target>', 'dir'.
const tree = (root) => {
  const out = {};
  const walk = (d, rel) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n), r = rel ? `${rel}/${n}` : n, st = lstatSync(p);
      if (st.isSymbolicLink()) out[r] = `link:${readlinkSync(p)}`;
      else if (st.isDirectory()) { out[r] = 'dir'; walk(p, r); }
      else out[r] = `file:${readFileSync(p).toString('base64')}:${st.mode & 0o100 ? 'x' : '-'}`;
    }
  };
  walk(root, '');
  return out;
};
const srcTree = tree(join(state, 'workspaces', src));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// Names an export could take in the next seconds, planted as links to a
// victim: the export must make a new file, never write through them.
const stampOf = (t) => new Date(t).toISOString().replace(/[-:]/g, '').slice(0, 15);
const planted = [];
for (let s = 0; s < 6; s++) {
  const n = `sr-workspace-${src}-${stampOf(Date.now() + s * 1000)}.tar.gz`;
  if (!planted.includes(n)) { symlinkSync(victim, join(hostA, n)); planted.push(n); }
}
let r = await call('export_workspace', { workspace_id: src });
const ex = sc(r);
ok(!r.isError && ex.path && ex.path.startsWith(hostA + '/') && /\/sr-workspace-exp-src-\d{8}T\d{6}(-\d+)?\.tar\.gz$/.test(ex.path),
  'export_workspace writes sr-workspace-ID-STAMP.tar.gz into the first --host-dir', text(r));
ok(!planted.includes(basename(ex.path || '')), 'the name taken is none of the links planted in its place', ex.path, planted);
is(readFileSync(victim, 'utf8'), 'victim\n', 'the victim the planted links point to is unchanged');
const st = statSync(ex.path);
ok(st.isFile() && (st.mode & 0o777) === 0o600 && ex.bytes === st.size, 'the archive is a private file of the size the result says', st.mode.toString(8), ex.bytes, st.size);
const link = (r.content || []).find((b) => b.type === 'resource_link' && b.mimeType === 'application/gzip');
ok(link && link.uri === `file://${ex.path}` && link.name === basename(ex.path) && link.size === st.size,
  'the result carries a resource_link (file:// URI, name, application/gzip, size)', r.content);
const expectedFiles = Object.values(srcTree).filter((v) => v !== 'dir').length;
is(ex.files, expectedFiles, 'structuredContent.files: every file and link of the workspace');
const archive = gunzipSync(readFileSync(ex.path));
ok(!archive.includes(Buffer.from('PRIVATE-KEY')) && !archive.includes(Buffer.from('root:x:0:0')),
  'the archive holds neither the key nor /etc/passwd that planted links point to');
const tv = execFileSync('tar', ['-tvzf', ex.path], { encoding: 'utf8' });
ok(/^l.* \.\/key -> /m.test(tv) && /^l.* \.\/pw -> \/etc\/passwd$/m.test(tv) && /^l.* \.\/myhome -> /m.test(tv) &&
  /^d.* \.\/data\/nested\/deep\/$/m.test(tv), 'the planted links are archived as links, the nested directories as directories', tv);
ok(ex.recipe === ex.path.replace(/\.tar\.gz$/, '.sh') && existsSync(ex.recipe) && (statSync(ex.recipe).mode & 0o100),
  'a recipe beside it, executable', ex.recipe);
const recipe = readFileSync(ex.recipe, 'utf8');
ok(/^#!\/bin\/sh\n/.test(recipe) && recipe.includes(basename(ex.path)) && /python: was 'Python \d/.test(recipe) &&
  /bash: was 'GNU bash/.test(recipe), 'the recipe unpacks the archive and names the languages and their versions', recipe);
ok((r.content || []).some((b) => b.type === 'resource_link' && b.uri === `file://${ex.recipe}`), 'the recipe comes as a resource_link too');
const rebuilt = join(top, 'rebuilt');
execFileSync('sh', [ex.recipe, rebuilt], { stdio: 'pipe' });
ok(same(tree(rebuilt), srcTree), 'sh RECIPE DIR rebuilds the workspace\'s files, identical', tree(rebuilt), srcTree);
execFileSync('rm', ['-rf', rebuilt]);

// The Dockerfile beside them: FROM debian:12 (the host's system), the
// languages from apt, WORKDIR /workspace, the archive ADDed; its syntax
// checked by our parser (the control: the parser refuses broken ones).
const stem = ex.path.replace(/\.tar\.gz$/, '');
ok(ex.dockerfile === `${stem}.Dockerfile` && existsSync(ex.dockerfile), 'a Dockerfile beside it, STEM.Dockerfile', ex.dockerfile);
ok((r.content || []).some((b) => b.type === 'resource_link' && b.uri === `file://${ex.dockerfile}`), 'the Dockerfile comes as a resource_link too');
like(text(r), /docker build -f IT -t NAME \./, 'the text says how to build it');
const df = ex.dockerfile ? readFileSync(ex.dockerfile, 'utf8') : '';
const dc = checkDockerfile(df);
is(dc.errors.join('; '), '', 'the Dockerfile parses (our checker)');
const ops = dc.ins.map((i) => `${i.op} ${i.args}`);
ok(ops[0] === 'FROM debian:12' && ops.includes('WORKDIR /workspace') && ops.includes(`ADD ${basename(ex.path)} /workspace/`) &&
  ops.indexOf('WORKDIR /workspace') < ops.indexOf(`ADD ${basename(ex.path)} /workspace/`),
  'FROM debian:12, WORKDIR /workspace, then ADD of the archive', ops);
ok(ops.some((o) => /^RUN apt-get update && .*apt-get install -y --no-install-recommends .*python3/.test(o)), 'debian:12 gets the languages from apt', ops);
like(df, new RegExp(`docker build -f ${basename(stem)}\\.Dockerfile`), 'its comment says how to build it');
for (const [bad, why] of [['RUN true\n', 'no FROM'], ['FROM debian:12\nRUN echo "x\n', 'an unbalanced quote'],
  ['FROM debian:12\nADD only\n', 'ADD without a destination'], ['FROM debian 12\n', 'a bad reference'],
  ['FROM debian:12\nFETCH x\n', 'an unknown instruction'], ['FROM debian:12\nRUN a \\', 'a dangling continuation']])
  ok(checkDockerfile(bad).errors.length > 0, `control: the checker refuses ${why}`, bad);
hostUntouched('export');

// The recipe of a workspace with packages: pip's with their versions, npm's,
// and a planted package name that would be shell code left out.
await call('run_code', { language: 'bash', workspace_id: 'exp-pkg', code: `
mkdir -p .sr/python/numpy-1.26.4.dist-info ".sr/python/x';touch owned;'-1.dist-info" ".sr/python/y\\\$(id)-2.dist-info" .sr/python/pandas-2.1.0.dist-info
printf '{"dependencies":{"left-pad":"^1.3.0","bad\\nname":"1","evil":"git+https://example.com/x.git"}}' > package.json
printf '#!/bin/sh\\ntouch "$(dirname "$0")/PWNED"\\nexit 1\\n' > evil-git; chmod +x evil-git
printf 'git=./evil-git\\n' > .npmrc` });
const pk = sc(await call('export_workspace', { workspace_id: 'exp-pkg' }));
const pkr = pk.recipe ? readFileSync(pk.recipe, 'utf8') : '';
ok(/\n\tpython3 -I -m pip install --upgrade --target \.sr\/python( '[^']+')+\n/.test(pkr) && pkr.includes("'numpy==1.26.4'") && pkr.includes("'pandas==2.1.0'") &&
  /\n\techo '\{\}' > "\$t\/package\.json"\n\t\(cd "\$t" && npm install --ignore-scripts --no-audit --no-fund 'left-pad@\^1\.3\.0'\)\n/.test(pkr) && /if \[ "\$\{SR_INSTALL-\}" = 1 \]/.test(pkr),
  'the recipe installs the pip packages with their versions, and the npm ones, with SR_INSTALL=1 only (pip isolated, npm without scripts)', pkr);
ok(existsSync(join(state, 'workspaces/exp-pkg/.sr/python', "x';touch owned;'-1.dist-info")) &&
  !pkr.includes('owned') && !pkr.includes('$(id)') && !pkr.includes('bad') && /some with unusual names left out/.test(pkr), 'a package name that is not plain is left out of the recipe', pkr);
is(spawnSync('sh', ['-n', pk.recipe || '/nonexistent']).status, 0, 'the recipe is valid sh');
ok(!pkr.includes('example.com'), "a dependency that is no registry version (a git URL) is not in the recipe's install", pkr);
const pkd = pk.dockerfile ? readFileSync(pk.dockerfile, 'utf8') : '';
is(checkDockerfile(pkd).errors.join('; '), '', 'the Dockerfile of a workspace with packages parses');
ok(/\nENV PYTHONPATH=\/workspace\/\.sr\/python\nRUN PIP_BREAK_SYSTEM_PACKAGES=1 python3 -I -m pip install --no-cache-dir --upgrade --target \/workspace\/\.sr\/python( '[^']+')+\n/.test(pkd) &&
  pkd.includes("'numpy==1.26.4'") && pkd.includes("'pandas==2.1.0'") && /npm install --ignore-scripts --no-audit --no-fund 'left-pad@\^1\.3\.0'\)/.test(pkd) &&
  /apt-get install .* python3-pip/.test(pkd) && /apt-get install .* npm/.test(pkd), 'the Dockerfile installs the pip packages with their versions and the npm ones (no scripts), pip and npm from apt', pkd);
ok(!pkd.includes('owned') && !pkd.includes('$(id)') && !pkd.includes('bad') && !pkd.includes('example.com') && /some with unusual names left out/.test(pkd),
  'names that are not plain and a git URL are left out of the Dockerfile', pkd);
// SR_INSTALL=1 on the host reads no .npmrc or package.json of the archive's:
// the planted git program never runs (control: npm in the unpacked
// directory reads that .npmrc).
if (spawnSync('npm', ['view', 'left-pad@1.3.0', 'version'], { encoding: 'utf8', timeout: 60000 }).status !== 0) {
  skip('SR_INSTALL=1 reads nothing the sandboxed code wrote', 'the npm registry is not reachable from here');
} else {
  await call('run_code', { language: 'bash', workspace_id: 'exp-npm', code: `
printf '{"dependencies":{"left-pad":"1.3.0","evil":"git+https://example.com/x.git"}}' > package.json
printf '#!/bin/sh\\ntouch "$(dirname "$0")/PWNED"\\nexit 1\\n' > evil-git; chmod +x evil-git
printf 'git=./evil-git\\n' > .npmrc` });
  const npmex = sc(await call('export_workspace', { workspace_id: 'exp-npm' }));
  const into = join(mkdtempSync(`${tmp}/sr-install.`), 'w');
  const inst = spawnSync('sh', [npmex.recipe, into], { encoding: 'utf8', env: { ...process.env, SR_INSTALL: '1' }, timeout: 120000 });
  ok(inst.status === 0 && existsSync(join(into, 'node_modules/left-pad/package.json')) && !existsSync(join(into, 'PWNED')),
    'SR_INSTALL=1 installs left-pad, and the planted git program never runs', inst.stderr);
  is(spawnSync('npm', ['config', 'get', 'git'], { cwd: into, encoding: 'utf8' }).stdout.trim(), './evil-git',
    'control: npm run in the unpacked directory reads its .npmrc');
}

// ---- the Dockerfile's FROM: an environment's image ---------------------------
// ROOT.sr-image.json's ref for an environment made from an image; debian:12
// for one built by hand, for a ref that is not plain (a newline and RUN
// after it), and for a .sr-image.json that is a link (not followed).
{
  const envs = {}, etop = mkdtempSync(`${tmp}/sr-export-env.`);
  process.on('exit', () => execFileSync('rm', ['-rf', etop]));
  for (const [n, json] of [['img', { ref: 'python:3.12-slim' }], ['hand', null], ['evil', { ref: 'debian:12\nRUN touch /pwned' }], ['linked', 'link']]) {
    const d = join(etop, `env-${n}`);
    mkdirSync(join(d, 'usr'), { recursive: true, mode: 0o755 });
    chmodSync(d, 0o755);
    if (json === 'link') {
      writeFileSync(join(etop, 'img.json'), JSON.stringify({ ref: 'python:3.12-slim' }));
      symlinkSync(join(etop, 'img.json'), `${d}.sr-image.json`);
    } else if (json) {
      writeFileSync(`${d}.sr-image.json`, JSON.stringify(json));
    }
    envs[n] = d;
  }
  const ec = await connect('sr-test-export-env', ['--host-dir', hostA, ...Object.entries(envs).flatMap(([n, d]) => ['--environment', `${n}=${d}`])]);
  const ecall = caller(ec);
  await ecall('write_file', { workspace_id: 'exp-env', path: 'a.txt', content: 'a' });
  const from = async (environment) => {
    const x = await ecall('export_workspace', { workspace_id: 'exp-env', ...(environment ? { environment } : {}) });
    const d = sc(x).dockerfile ? readFileSync(sc(x).dockerfile, 'utf8') : '';
    const c = checkDockerfile(d);
    return { x, d, c, first: c.ins[0] ? `${c.ins[0].op} ${c.ins[0].args}` : '' };
  };
  let f = await from('img');
  ok(f.first === 'FROM python:3.12-slim' && !f.c.errors.length && !/apt-get/.test(f.d), "an image's environment: FROM its ref, no apt for the languages", f.d);
  f = await from('hand');
  ok(f.first === 'FROM debian:12' && /built by hand/.test(f.d) && !f.c.errors.length, 'a root built by hand: FROM debian:12', f.d);
  f = await from('evil');
  ok(f.first === 'FROM debian:12' && !f.d.includes('pwned') && !f.c.errors.length, 'a ref that is not plain (a newline, RUN): not used, FROM debian:12', f.d);
  f = await from('linked');
  ok(f.first === 'FROM debian:12', 'a .sr-image.json that is a link: not followed, FROM debian:12', f.d);
  f = await from(null);
  ok(f.first === 'FROM debian:12', 'no environment named: the default, FROM debian:12', f.d);
  f = await from('nosuch');
  refused(f.x, /environment must be/, 'an environment that is not there: refused');
  await ec.close();
}

// A second export in the same second: another name, the first kept.
const r2 = sc(await call('export_workspace', { workspace_id: src }));
ok(r2.path && r2.path !== ex.path && existsSync(ex.path) && statSync(ex.path).size === st.size, 'a second export takes a new name; the first is kept', r2.path);

// SR_MCP_HOST_DIRS: the first of the list gets the exports.
{
  const c = await connect('sr-test-export-env', [], { SR_MCP_HOST_DIRS: `${hostB}:${hostA}` });
  const e = sc(await caller(c)('export_workspace', { workspace_id: src }));
  ok(e.path && e.path.startsWith(hostB + '/'), 'SR_MCP_HOST_DIRS=B:A exports into B', e.path);
  await c.close();
  const c2 = await connect('sr-test-export-both', ['--host-dir', hostA], { SR_MCP_HOST_DIRS: hostB });
  const e2 = sc(await caller(c2)('export_workspace', { workspace_id: src }));
  ok(e2.path && e2.path.startsWith(hostA + '/'), '--host-dir A with SR_MCP_HOST_DIRS=B: the option replaces the variable', e2.path);
  await c2.close();
}

// Import the archive into a new workspace: the same files.
r = await call('import_files', { host_path: ex.path, workspace_id: 'exp-dst' });
ok(!r.isError && sc(r).kind === 'archive' && sc(r).dest === '.', 'import_files of the archive (absolute path) extracts it', text(r));
ok(same(tree(join(state, 'workspaces', 'exp-dst')), srcTree), 'export then import: every file, directory and link identical',
  tree(join(state, 'workspaces', 'exp-dst')));
r = await call('import_files', { host_path: basename(ex.path), workspace_id: 'exp-dst', dest: 'again/here' });
ok(!r.isError && same(tree(join(state, 'workspaces', 'exp-dst', 'again/here')), srcTree), 'a path relative to an allowed directory, into dest', text(r));
r = await call('import_files', { host_path: basename(ex.path), workspace_id: 'exp-dst', extract: false });
ok(!r.isError && sc(r).kind === 'file' && readFileSync(join(state, 'workspaces', 'exp-dst', basename(ex.path))).equals(readFileSync(ex.path)),
  'extract false copies the archive as a file', text(r));
r = await call('import_files', { host_path: ex.path });
ok(!r.isError && /^ws-/.test(sc(r).workspace_id) && existsSync(join(state, 'workspaces', sc(r).workspace_id, 'a.txt')),
  'without workspace_id: a new workspace', sc(r));
run = sc(await call('run_code', { language: 'bash', workspace_id: 'exp-dst', code: 'cat data/nested/deep/b.csv; ./tool.sh' }));
is(run.stdout, 'a,b\n1,2\nrun\n', 'run_code in the imported workspace reads the files and runs the executable');

// A plain file and a directory.
writeFileSync(join(hostA, 'plain.csv'), 'x,y\n3,4\n');
mkdirSync(join(hostA, 'dir/sub/deeper'), { recursive: true });
writeFileSync(join(hostA, 'dir/one.txt'), 'one\n');
writeFileSync(join(hostA, 'dir/sub/deeper/two.txt'), 'two\n');
symlinkSync(secret, join(hostA, 'dir/out-link'));
symlinkSync(outside, join(hostA, 'dir/out-dir'));
r = await call('import_files', { host_path: 'plain.csv', workspace_id: 'exp-in' });
ok(!r.isError && sc(r).kind === 'file' && readFileSync(join(state, 'workspaces/exp-in/plain.csv'), 'utf8') === 'x,y\n3,4\n', 'a file: copied under its own name', text(r));
r = await call('import_files', { host_path: join(hostA, 'plain.csv'), workspace_id: 'exp-in', dest: 'in/data.csv' });
ok(!r.isError && readFileSync(join(state, 'workspaces/exp-in/in/data.csv'), 'utf8') === 'x,y\n3,4\n', 'a file: to dest, its directory made', text(r));
r = await call('import_files', { host_path: 'dir', workspace_id: 'exp-in' });
const dirTree = tree(join(state, 'workspaces/exp-in/dir'));
ok(!r.isError && sc(r).kind === 'dir' && sc(r).files === 2 && sc(r).skipped === 2 && dirTree['sub/deeper/two.txt'] && dirTree['one.txt'] &&
  !dirTree['out-link'] && !dirTree['out-dir'], 'a directory: its files copied, nested; its links out skipped', text(r), dirTree);

// ---- ways out of the allowed directories -----------------------------------------
symlinkSync(secret, join(hostA, 'link-out'));
symlinkSync(outside, join(hostA, 'dir-out'));
refused(await call('import_files', { host_path: secret, workspace_id: 'exp-in' }), /not inside a directory the administrator allowed/, 'an absolute path elsewhere: refused');
refused(await call('import_files', { host_path: '../outside/secret.txt', workspace_id: 'exp-in' }), /escapes the allowed directory/, '../: refused');
refused(await call('import_files', { host_path: `${hostA}/../outside/secret.txt`, workspace_id: 'exp-in' }), /escapes the allowed directory/, 'an allowed directory then ..: refused');
refused(await call('import_files', { host_path: 'link-out', workspace_id: 'exp-in' }), /symbolic link/, 'a link in the allowed directory pointing out: refused');
refused(await call('import_files', { host_path: 'dir-out/secret.txt', workspace_id: 'exp-in' }), /symbolic link/, 'a linked directory on the way: refused');
refused(await call('import_files', { host_path: '/etc/passwd', workspace_id: 'exp-in' }), /not inside/, '/etc/passwd: refused');
let hardOk = true;
try { linkSync(secret, join(hostA, 'hard-out')); } catch { hardOk = false; }
if (hardOk)
  refused(await call('import_files', { host_path: 'hard-out', workspace_id: 'exp-in' }), /hard links/, 'a hard link in the allowed directory to a file outside: refused');
else
  skip('a hard link to a file outside', 'the file system refuses the link');
const grepTree = (root, needle) => Object.values(tree(root)).some((v) => v.startsWith('file:') && Buffer.from(v.split(':')[1], 'base64').includes(needle));
ok(!grepTree(join(state, 'workspaces'), Buffer.from('SECRET-OUTSIDE')) && !grepTree(join(state, 'workspaces'), Buffer.from('PRIVATE-KEY')),
  'no workspace holds the secret or the key');
hostUntouched('import refusals');

// ---- hostile archives ---------------------------------------------------------------
const py = (code) => execFileSync('python3', ['-c', code], { cwd: hostA, stdio: 'pipe' });
const mkTar = (file, members, mode = 'w') => py(`
import tarfile, io, json
with tarfile.open(${JSON.stringify(file)}, ${JSON.stringify(mode)}, format=tarfile.GNU_FORMAT) as t:
    for m in json.loads(${JSON.stringify(JSON.stringify(members))}):
        i = tarfile.TarInfo(m['name'])
        if m.get('link'):
            i.type = tarfile.SYMTYPE if m.get('sym', True) else tarfile.LNKTYPE
            i.linkname = m['link']
            t.addfile(i)
        else:
            d = m.get('data', 'x').encode(); i.size = len(d); t.addfile(i, io.BytesIO(d))
`);
const fresh = (ws) => !existsSync(join(state, 'workspaces', ws)) || readdirSync(join(state, 'workspaces', ws)).length === 0;
mkTar('dotdot.tar', [{ name: 'ok.txt' }, { name: '../../escaped.txt', data: 'owned' }]);
r = await call('import_files', { host_path: 'dotdot.tar', workspace_id: 'exp-evil1' });
refused(r, /absolute or has a '\.\.'/, 'an archive with ../ in a name: refused');
ok(fresh('exp-evil1') && !existsSync(join(top, 'escaped.txt')) && !existsSync(join(state, 'escaped.txt')), '../: nothing extracted, nothing written above');
mkTar('abs.tar', [{ name: join(outside, 'abs.txt'), data: 'owned' }]);
refused(await call('import_files', { host_path: 'abs.tar', workspace_id: 'exp-evil2' }), /absolute/, 'an archive with an absolute name: refused');
ok(fresh('exp-evil2') && !existsSync(join(outside, 'abs.txt')), 'absolute: nothing extracted');
mkTar('hard.tar', [{ name: 'h', link: secret, sym: false }]);
refused(await call('import_files', { host_path: 'hard.tar', workspace_id: 'exp-evil3' }), /a hard link in it points/, 'an archive with a hard link to an absolute path: refused');
mkTar('hard2.tar', [{ name: 'f', data: 'x' }, { name: 'h', link: '../../outside/secret.txt', sym: false }]);
refused(await call('import_files', { host_path: 'hard2.tar', workspace_id: 'exp-evil3' }), /a hard link in it points/, 'an archive with a hard link through ..: refused');
ok(fresh('exp-evil3'), 'hard links out: nothing extracted');
// A link then a write through it: to the outside directory, and up.
mkTar('through.tar', [{ name: 'lnk', link: outside }, { name: 'lnk/pwned.txt', data: 'owned' },
  { name: 'up', link: '../../../..' }, { name: 'up/pwned2.txt', data: 'owned' }, { name: 'fine.txt', data: 'fine' }]);
r = await call('import_files', { host_path: 'through.tar', workspace_id: 'exp-evil4' });
ok(!existsSync(join(outside, 'pwned.txt')) && !existsSync(join(top, 'pwned2.txt')) && !existsSync(join(state, 'pwned2.txt')) &&
  !existsSync(join(state, 'workspaces', 'pwned2.txt')), 'a link then a write through it: nothing written outside the workspace', text(r));
const evil4 = tree(join(state, 'workspaces/exp-evil4'));
ok(evil4['fine.txt'] && !Object.keys(evil4).some((p) => /pwned/.test(p)),
  'a link then a write through it: the write did not land in the workspace either (the rest was extracted)', text(r), evil4);
// Links the sandboxed code planted in the workspace beforehand: an archive
// writing through them, and a dest through them.
await call('run_code', { language: 'bash', workspace_id: 'exp-evil6', code: `ln -s ${outside} planted; ln -s ${home} home; ln -s /tmp tmplink` });
mkTar('planted.tar', [{ name: 'planted/through.txt', data: 'owned' }, { name: 'home/.ssh/id_rsa', data: 'owned' },
  { name: 'tmplink/x.txt', data: 'owned' }, { name: 'ok.txt', data: 'ok' }]);
r = await call('import_files', { host_path: 'planted.tar', workspace_id: 'exp-evil6' });
ok(!existsSync(join(outside, 'through.txt')) && readFileSync(key, 'utf8') === KEY && !existsSync(join(tmp, 'x.txt')),
  'an archive writing through links planted in the workspace: nothing written outside it (the sandbox holds tar)', text(r));
refused(await call('import_files', { host_path: 'plain.csv', workspace_id: 'exp-evil6', dest: 'planted/p.csv' }), /symbolic link/, 'a dest through a planted link: refused');
refused(await call('import_files', { host_path: 'through.tar', workspace_id: 'exp-evil6', dest: 'home' }), /symbolic link/, 'an archive into a dest that is a planted link: refused');
ok(!existsSync(join(outside, 'p.csv')) && !existsSync(join(home, 'lnk')), 'planted links: nothing written through them');
// Bombs.
py(`
import tarfile, io
with tarfile.open('many.tar.gz', 'w:gz') as t:
    for i in range(100001):
        t.addfile(tarfile.TarInfo('f%d' % i), io.BytesIO(b''))
`);
refused(await call('import_files', { host_path: 'many.tar.gz', workspace_id: 'exp-bomb1' }), /100000 entries/, 'an archive of 100001 entries: refused, naming the cap');
ok(fresh('exp-bomb1'), 'too many entries: nothing extracted');
execFileSync('truncate', ['-s', '3G', join(top, 'sparse')]);
execFileSync('tar', ['-cSzf', join(hostA, 'sparse.tgz'), '-C', top, 'sparse']);
execFileSync('rm', [join(top, 'sparse')]);
ok(statSync(join(hostA, 'sparse.tgz')).size < 100000, 'a sparse file of 3 GiB makes a small archive');
refused(await call('import_files', { host_path: 'sparse.tgz', workspace_id: 'exp-bomb2' }), /1024 MiB/, 'a 3 GiB sparse file: refused, naming the cap');
ok(fresh('exp-bomb2'), 'the sparse bomb: nothing extracted');
writeFileSync(join(hostA, 'fake.tar.gz'), 'not gzip at all');
refused(await call('import_files', { host_path: 'fake.tar.gz', workspace_id: 'exp-evil5' }), /not one.*extract false/, 'a file named .tar.gz that is not an archive: refused, saying extract false copies it');
hostUntouched('hostile archives');

// ---- resources -------------------------------------------------------------------------
const { resourceTemplates } = await client.listResourceTemplates();
const uris = resourceTemplates.map((t) => t.uriTemplate).sort();
is(uris.join(' '), 'sr://jobs/{job_id}/stderr sr://jobs/{job_id}/stdout sr://workspaces/{workspace_id}/files/{+path}', 'resources/templates/list: the workspace file and job output templates');
let res = await client.readResource({ uri: `sr://workspaces/${src}/files/data/nested/deep/b.csv` });
ok(res.contents?.[0]?.text === 'a,b\n1,2\n' && res.contents[0].mimeType === 'text/csv', 'resources/read of a nested CSV: its text', res);
res = await client.readResource({ uri: `sr://workspaces/${src}/files/with%20space/f.txt` });
is(res.contents?.[0]?.text, 'in a dir with a space\n', 'resources/read: a %-escaped path');
res = await client.readResource({ uri: `sr://workspaces/${src}/files/data/bytes.bin` });
ok(res.contents?.[0]?.blob && Buffer.from(res.contents[0].blob, 'base64').equals(readFileSync(join(state, 'workspaces', src, 'data/bytes.bin'))),
  'resources/read of binary: a base64 blob of its bytes');
run = sc(await call('run_code', { language: 'bash', code: 'echo hello-resource; echo to-stderr >&2' }));
res = await client.readResource({ uri: `sr://jobs/${run.job_id}/stdout` });
is(res.contents?.[0]?.text, 'hello-resource\n', 'resources/read of a job\'s stdout');
res = await client.readResource({ uri: `sr://jobs/${run.job_id}/stderr` });
is(res.contents?.[0]?.text, 'to-stderr\n', 'resources/read of a job\'s stderr');
const readErr = async (uri) => { try { return { ok: await client.readResource({ uri }) }; } catch (e) { return { code: e.code, message: String(e.message) }; } };
let e = await readErr(`sr://workspaces/${src}/files/key`);
ok(e.code && /symbolic link/.test(e.message) && !/PRIVATE-KEY/.test(JSON.stringify(e)), 'resources/read through a planted link to the key: refused', e);
e = await readErr(`sr://workspaces/${src}/files/sshdir/id_rsa`);
ok(e.code && /symbolic link/.test(e.message), 'resources/read through a planted linked directory: refused', e);
e = await readErr(`sr://workspaces/${src}/files/pw`);
ok(e.code && !/root:x:0:0/.test(JSON.stringify(e)), 'resources/read of a link to /etc/passwd: refused', e);
e = await readErr(`sr://workspaces/${src}/files/..%2F..%2Fspool`);
ok(e.code === -32602 && /escapes the workspace/.test(e.message), 'resources/read of ../..: refused', e);
e = await readErr(`sr://workspaces/${src}/files/missing.txt`);
is(e.code, -32002, 'resources/read of a missing file: -32002, resource not found');
e = await readErr('sr://jobs/0123456789abcdef0123456789abcdef/stdout');
is(e.code, -32002, 'resources/read of a missing job: -32002');
// 2026-07-28 retired -32002: a missing resource is -32602 there.
{
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
  const p = spawnSync(server, [], { encoding: 'utf8', env: serverEnv(state, { HOME: home }), input:
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: `sr://workspaces/${src}/files/missing.txt`, _meta: meta } }) + '\n' +
    JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'resources/templates/list', params: { _meta: meta } }) + '\n' });
  const m = Object.fromEntries(p.stdout.trim().split('\n').map((l) => JSON.parse(l)).map((x) => [x.id, x]));
  ok(m[1]?.error?.code === -32602 && /Resource not found/.test(m[1].error.message) && m[2]?.result?.resultType === 'complete' &&
    m[2].result.cacheScope === 'private' && m[2].result.resourceTemplates?.length === 3,
  'under 2026-07-28: a missing resource is -32602; the templates come with resultType and cacheScope', p.stdout);
}
const { resources } = await client.listResources();
const listed = resources.filter((x) => x.uri.startsWith(`sr://workspaces/${src}/files/`)).map((x) => x.uri.slice(`sr://workspaces/${src}/files/`.length)).sort();
is(listed.join(','), 'a.txt,data/bytes.bin,data/nested/deep/b.csv,tool.sh,with%20space/f.txt', 'resources/list: the regular files of the workspace, links left out');
ok(resources.length <= 1000, 'resources/list: at most 1000');

await client.close();
chmodSync(hostA, 0o755);

// An export cut short (sr-mcp killed while tar runs) leaves nothing in the
// host directory: the archive is unnamed until it is complete.
{
  const hostK = mkdtempSync(`${tmp}/sr-export-kill.`);
  process.on('exit', () => execFileSync('rm', ['-rf', hostK]));
  const kc = new Client({ name: 'sr-test-export-kill', version: '1' });
  const tr = new StdioClientTransport({ command: server, args: ['--host-dir', hostK], stderr: 'pipe',
    env: serverEnv(state, { HOME: home }) });
  await kc.connect(tr);
  const r = await kc.callTool({ name: 'run_code', arguments: { language: 'bash', workspace_id: 'killed',
    code: 'head -c 300M /dev/urandom > big && echo made', timeout_s: 120 } }, undefined, T);
  if (sc(r).stdout !== 'made\n') {
    skip('an export cut short leaves nothing', `the 300 MB workspace could not be made: ${text(r).slice(0, 200)}`);
  } else {
    let finished = false;
    kc.callTool({ name: 'export_workspace', arguments: { workspace_id: 'killed' } }, undefined, T)
      .then(() => { finished = true; }, () => {});
    await new Promise((res) => setTimeout(res, 2500));
    process.kill(tr.pid, 'SIGKILL');
    await new Promise((res) => setTimeout(res, 500));
    if (finished)
      skip('an export cut short leaves nothing', 'the export finished before sr-mcp could be killed');
    else
      is(readdirSync(hostK).join(','), '', 'an export cut short (sr-mcp killed while tar runs) leaves no file in the host directory');
  }
  await kc.close().catch(() => {});
}
done();
