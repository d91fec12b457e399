// transfer-limits.mjs - what export_workspace and import_files may carry,
// through the official SDK v1 client.
//  - the quota: a gzip bomb imported again and again stops at the
//    workspace quota, before a byte past it is written (its size, and du
//    of its directory, stay under it), and so does a directory copied from
//    the host; the same imports under a larger quota go through (control);
//    the size cache agrees with a fresh measure after each.
//  - set-ID bits: a set-user-ID file made by run_code with the quota off
//    (the control shows it is made) leaves in the archive without the bit,
//    a fifo beside it is left out and both are reported; an archive with
//    set-ID files, a hard link to one, a member made set-ID by a later one
//    of the same name, a fifo and a device is imported without any set-ID
//    bit and without the fifo and device, reported; the recipe refuses to
//    run as root (checked under unshare -r, where id -u is 0) and works as
//    the user (control).
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, readdirSync, lstatSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, skip, done, server, stateDir, serverEnv, sc, text } from './tap.mjs';

const tmp = process.env.TMPDIR || '/tmp';
const top = mkdtempSync(`${tmp}/sr-xfer.`);
process.on('exit', () => execFileSync('rm', ['-rf', top]));
const host = join(top, 'host');
mkdirSync(host);
const T = { timeout: 180000 };
const connect = async (state, env) => {
  const c = new Client({ name: 'sr-test-transfer-limits', version: '1' });
  await c.connect(new StdioClientTransport({ command: server, args: ['--host-dir', host], stderr: 'pipe',
    env: serverEnv(state, env) }));
  return { c, call: (name, args) => c.callTool({ name, arguments: args }, undefined, T) };
};
const py = (code) => execFileSync('python3', ['-c', code], { cwd: host, stdio: 'pipe' });
const du = (dir) => Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);
const MB = 1 << 20;

// ---- the quota -------------------------------------------------------------------
// A gzip bomb: 5 MiB of zeros in a few KiB.
py(`
import tarfile, io
with tarfile.open('bomb.tar.gz', 'w:gz') as t:
    i = tarfile.TarInfo('zeros'); i.size = 5 << 20; t.addfile(i, io.BytesIO(bytes(i.size)))
`);
mkdirSync(join(host, 'tree/sub'), { recursive: true });
writeFileSync(join(host, 'tree/sub/big'), Buffer.alloc(5 * MB));
writeFileSync(join(host, 'tree/small'), 'small\n');
{
  const state = stateDir();
  const { c, call } = await connect(state, { SR_MCP_WORKSPACE_QUOTA: '8M' });
  const wsDir = join(state, 'workspaces', 'bomb');
  const cacheOf = (id) => { try { return Number(readFileSync(join(state, 'ws-size', id), 'utf8').split(' ')[4]); } catch { return NaN; } };
  const listed = async (id) => (sc(await call('list_workspaces', {})).workspaces || []).find((w) => w.workspace_id === id)?.bytes;
  ok(readFileSync(join(host, 'bomb.tar.gz')).length < 64 * 1024, 'the bomb is a small archive');
  let r = await call('import_files', { host_path: 'bomb.tar.gz', workspace_id: 'bomb', dest: 'one' });
  ok(!r.isError && existsSync(join(wsDir, 'one/zeros')), 'the bomb imported once fits the quota of 8 MiB', text(r));
  is(cacheOf('bomb'), await listed('bomb'), 'the size cache agrees with a fresh measure after the import');
  let refused = 0;
  for (let i = 2; i <= 4; i++) {
    r = await call('import_files', { host_path: 'bomb.tar.gz', workspace_id: 'bomb', dest: `n${i}` });
    if (r.isError) refused++;
    if (i === 2) {
      ok(r.isError && /quota of 8388608 bytes/.test(text(r)) && /would add \d+ bytes/.test(text(r)) &&
        /--workspace-quota/.test(text(r)) && /delete_path/.test(text(r)), 'the second import over the room left: an error naming the quota, what it would add and what to do', text(r));
      ok(!existsSync(join(wsDir, 'n2')), 'the refused import wrote nothing (not even its dest directory)');
    }
  }
  is(refused, 3, 'every import past the room left is refused');
  const size = await listed('bomb');
  ok(size <= 8 * MB, 'the workspace\'s size stays under its quota', size);
  ok(du(wsDir) <= 8 * MB, 'du of the workspace directory stays under the quota', du(wsDir));
  is(cacheOf('bomb'), size, 'the size cache agrees with a fresh measure after the refusals');
  // A directory from the host: counted before it is copied.
  r = await call('import_files', { host_path: 'tree', workspace_id: 'tree' });
  ok(!r.isError && sc(r).files === 2, 'a directory of 5 MiB copied into a workspace of 8 MiB', text(r));
  is(cacheOf('tree'), await listed('tree'), 'the size cache agrees after a directory copy');
  r = await call('import_files', { host_path: 'tree', workspace_id: 'tree', dest: 'again' });
  ok(r.isError && /quota of 8388608 bytes/.test(text(r)) && /would add 524\d{4} bytes/.test(text(r)),
    'the same directory again: refused, naming the quota and what it would add', text(r));
  ok(!existsSync(join(state, 'workspaces/tree/again')), 'the refused copy wrote nothing');
  r = await call('import_files', { host_path: 'tree/sub/big', workspace_id: 'tree', dest: 'big2' });
  ok(r.isError && /quota of 8388608 bytes/.test(text(r)), 'a single file over the room left: refused', text(r));
  r = await call('import_files', { host_path: 'tree/sub/big', workspace_id: 'tree', dest: 'tree/sub/big' });
  ok(!r.isError, 'control: the same file over itself adds nothing and is copied', text(r));
  is(cacheOf('tree'), await listed('tree'), 'the size cache agrees after a file copied over itself');
  ok(du(join(state, 'workspaces/tree')) <= 8 * MB, 'du of that workspace stays under the quota');
  await c.close();
}
{
  // Control: the same imports under a larger quota go through.
  const state = stateDir();
  const { c, call } = await connect(state, { SR_MCP_WORKSPACE_QUOTA: '64M' });
  let fine = 0;
  for (let i = 1; i <= 4; i++)
    fine += !(await call('import_files', { host_path: 'bomb.tar.gz', workspace_id: 'bomb', dest: `n${i}` })).isError;
  is(fine, 4, 'control: under a quota of 64 MiB the bomb imports four times');
  ok(!(await call('import_files', { host_path: 'tree', workspace_id: 'bomb', dest: 'again' })).isError, 'control: and the directory too');
  await c.close();
}
{
  // The inode quota: an archive of 300 empty files, and a directory of as
  // many, in a workspace capped at 200 inodes; a control under 2000.
  py(`
import tarfile, io
with tarfile.open('many.tar', 'w') as t:
    for n in range(300):
        t.addfile(tarfile.TarInfo(f'e{n}'), io.BytesIO(b''))
`);
  mkdirSync(join(host, 'many'));
  for (let n = 0; n < 300; n++) writeFileSync(join(host, 'many', `e${n}`), '');
  for (const [cap, want] of [['200', true], ['2000', false]]) {
    const state = stateDir();
    const { c, call } = await connect(state, { SR_MCP_WORKSPACE_QUOTA: '64M', SR_MCP_WORKSPACE_INODES: cap });
    for (const hp of ['many.tar', 'many']) {
      const r = await call('import_files', { host_path: hp, workspace_id: 'inodes', dest: hp.replace('.', '-') });
      const n = existsSync(join(state, 'workspaces/inodes')) ?
        Number(execFileSync('sh', ['-c', `find '${join(state, 'workspaces/inodes')}' | wc -l`], { encoding: 'utf8' })) : 0;
      if (want) {
        ok(r.isError && /quota of 200 inodes/.test(text(r)) && /--workspace-inodes/.test(text(r)),
          `${hp}: 300 entries past an inode quota of 200 are refused, naming it`, text(r));
        ok(n <= 200, `and the workspace holds no more than 200 inodes (${n})`);
      } else {
        ok(!r.isError, `control: ${hp} under an inode quota of 2000 is imported`, text(r));
      }
    }
    await c.close();
  }
}

// ---- set-ID bits, fifos and devices ------------------------------------------------
const state = stateDir();
const { c, call } = await connect(state, { SR_MCP_WORKSPACE_QUOTA: 'off' });
let r = await call('run_code', { language: 'bash', workspace_id: 'suid', code: `
echo x > su; chmod 4755 su; echo y > sg; chmod 2755 sg; echo z > st; chmod 1644 st
ln su hard; mkfifo ff; mkdir sd; chmod 3777 sd; stat -c '%a %n' su sg st sd` });
is(sc(r).stdout, '4755 su\n2755 sg\n1644 st\n3777 sd\n', 'control: with the quota off, run_code makes set-user-ID, set-group-ID and sticky files');
ok(lstatSync(join(state, 'workspaces/suid/su')).mode & 0o4000, 'control: the set-user-ID file is so in the workspace on the host');
r = await call('export_workspace', { workspace_id: 'suid' });
const ex = sc(r);
ok(!r.isError && ex.path, 'export_workspace of it', text(r));
const members = JSON.parse(execFileSync('python3', ['-c', `
import tarfile, json, sys
with tarfile.open(sys.argv[1]) as t:
    print(json.dumps([[m.name, m.mode, m.type.decode()] for m in t.getmembers()]))`, ex.path], { encoding: 'utf8' }));
ok(members.length > 0 && members.every(([, mode]) => (mode & 0o7000) === 0), 'no member of the archive has a set-ID or sticky bit', members);
ok(!members.some(([n]) => n === './ff') && members.some(([n]) => n === './su') && members.some(([n]) => n === './hard'),
  'the fifo is not in the archive; the files and the hard link are', members);
ok(/Left out.*\.\/ff/.test(text(r)) && /bits dropped from 5: .*\.\/su/.test(text(r)) && ex.left_out === 1 && ex.mode_changed === 5,
  'the result names the fifo left out and the entries whose bits were dropped', text(r), ex);

// The recipe: refuses root, works for the user.
const out = join(top, 'rebuilt');
let p = spawnSync('unshare', ['-r', 'sh', ex.recipe, join(top, 'as-root')], { encoding: 'utf8' });
if (spawnSync('unshare', ['-r', 'id', '-u'], { encoding: 'utf8' }).stdout !== '0\n') {
  skip('the recipe refuses to run as root', 'unshare -r does not work here');
} else {
  ok(p.status !== 0 && /refusing to run as root/.test(p.stderr) && p.stderr.trim().split('\n').length === 1 && !existsSync(join(top, 'as-root')),
    'the recipe run as root (unshare -r: id -u is 0) refuses in one line and unpacks nothing', p.status, p.stderr);
}
p = spawnSync('sh', [ex.recipe, out], { encoding: 'utf8' });
ok(p.status === 0 && existsSync(join(out, 'su')) && (lstatSync(join(out, 'su')).mode & 0o7000) === 0 && !existsSync(join(out, 'ff')),
  'control: as the user the recipe rebuilds it, no set-ID bit, no fifo', p.status, p.stderr);

// The archive back in: no set-ID bit.
r = await call('import_files', { host_path: ex.path, workspace_id: 'suid-back' });
const modes = (d) => readdirSync(d, { recursive: true }).map((n) => [n, lstatSync(join(d, n)).mode]);
ok(!r.isError && modes(join(state, 'workspaces/suid-back')).every(([, m]) => (m & 0o7000) === 0), 'the export imported back: no set-ID bit', text(r));

// A hostile archive: set-ID members, a hard link to one, a later member of
// the same name that would make a file set-ID, a fifo, a device, and a
// hard link to the fifo.
py(`
import tarfile, io
def f(t, name, mode, data=b'x'):
    i = tarfile.TarInfo(name); i.mode = mode; i.size = len(data); t.addfile(i, io.BytesIO(data))
with tarfile.open('setid.tar', 'w', format=tarfile.GNU_FORMAT) as t:
    f(t, 'su', 0o4755); f(t, 'sg', 0o2755); f(t, 'plain', 0o644); f(t, 'plain', 0o6755, b'again')
    i = tarfile.TarInfo('hard'); i.type = tarfile.LNKTYPE; i.linkname = 'su'; t.addfile(i)
    i = tarfile.TarInfo('d'); i.type = tarfile.DIRTYPE; i.mode = 0o3777; t.addfile(i)
    i = tarfile.TarInfo('fifo'); i.type = tarfile.FIFOTYPE; t.addfile(i)
    i = tarfile.TarInfo('null'); i.type = tarfile.CHRTYPE; i.devmajor = 1; i.devminor = 3; t.addfile(i)
    i = tarfile.TarInfo('wh'); i.type = tarfile.CHRTYPE; t.addfile(i)
    i = tarfile.TarInfo('fifo2'); i.type = tarfile.LNKTYPE; i.linkname = 'fifo'; t.addfile(i)
    f(t, 'ok.txt', 0o644, b'ok')
`);
r = await call('import_files', { host_path: 'setid.tar', workspace_id: 'hostile' });
const hw = join(state, 'workspaces/hostile');
const got = existsSync(hw) ? modes(hw) : [];
ok(!r.isError && got.length && got.every(([, m]) => (m & 0o7000) === 0), 'a hostile archive imported: no set-ID or sticky bit on any entry', text(r), got.map(([n, m]) => `${n} ${m.toString(8)}`));
ok(existsSync(join(hw, 'ok.txt')) && readFileSync(join(hw, 'plain'), 'utf8') === 'again' && existsSync(join(hw, 'hard')),
  'its files are there (the later member of a name wins), the hard link too', got.map(([n]) => n));
ok(!['fifo', 'null', 'wh', 'fifo2'].some((n) => got.some(([g]) => g === n)), 'the fifo, the devices and the hard link to the fifo are left out', got.map(([n]) => n));
ok(/Left out.*fifo.*null.*wh.*fifo2/.test(text(r)) && sc(r).left_out === 4 && /bits dropped from/.test(text(r)) && /su/.test(text(r)),
  'the result names what was left out and what lost its bits', text(r), sc(r));

// A set-ID file in a host directory, copied as a file and in a directory.
mkdirSync(join(host, 'withsuid'));
writeFileSync(join(host, 'withsuid/tool'), 'tool\n');
chmodSync(join(host, 'withsuid/tool'), 0o4755);
ok(lstatSync(join(host, 'withsuid/tool')).mode & 0o4000, 'control: the host file is set-user-ID');
r = await call('import_files', { host_path: 'withsuid', workspace_id: 'hostcopy' });
ok(!r.isError && (lstatSync(join(state, 'workspaces/hostcopy/withsuid/tool')).mode & 0o7000) === 0 && /bits dropped from: tool/.test(text(r)),
  'a set-user-ID file in a host directory: copied without the bit, reported', text(r));
r = await call('import_files', { host_path: 'withsuid/tool', workspace_id: 'hostcopy', dest: 'tool' });
ok(!r.isError && (lstatSync(join(state, 'workspaces/hostcopy/tool')).mode & 0o7000) === 0, 'a set-user-ID file copied alone: without the bit', text(r));
await c.close();
done();
