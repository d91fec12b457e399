// scratch.mjs - scratch workspaces through the official SDK v1 client
// (which checks each structuredContent against the tool's outputSchema):
// run_code and import_files without a workspace_id make a scratch
// workspace that the result names, with when it goes and how to keep it;
// list_workspaces tells scratch from kept; an untouched scratch workspace
// is removed once unused for --scratch-ttl (the control: a named one of
// the same age stays), one that a later call names is kept; a job running
// in it keeps it until the job has ended and the TTL passed since; the
// marks are on disk, so a restarted sr-mcp removes or keeps the same.
import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, done, server, stateDir, serverEnv, sc, text, sleep } from './tap.mjs';

const T = { timeout: 120000 };
const host = mkdtempSync(`${process.env.TMPDIR || '/tmp'}/sr-scratch-host.`);
writeFileSync(join(host, 'in.csv'), 'a,b\n1,2\n');
async function connect(state, extra) {
  const client = new Client({ name: 'sr-test-scratch', version: '1' });
  await client.connect(new StdioClientTransport({ command: server, args: [], stderr: 'pipe',
    env: serverEnv(state, { SR_MCP_HOST_DIRS: host, ...extra }) }));
  const call = (name, args) => client.callTool({ name, arguments: args }, undefined, T);
  return { client, call };
}
const wsDir = (state, id) => join(state, 'workspaces', id);
async function until(cond, secs) {
  for (let i = 0; i < secs * 10 && !cond(); i++) await sleep(100);
  return cond();
}
const entry = async (call, id) => (sc(await call('list_workspaces', {})).workspaces || [])
  .find((w) => w.workspace_id === id);

// ---- the option: the TTL syntax; bad values are usage errors ------------------
for (const v of ['7x', '-1h', '1.5d']) {
  const p = spawnSync(server, ['--scratch-ttl', v, '--help'], { env: serverEnv(stateDir()), encoding: 'utf8' });
  is(p.status, 100, `--scratch-ttl ${v}: usage error`);
}
for (const v of ['off', '0', '90s', '2h', '1d']) {
  const p = spawnSync(server, ['--scratch-ttl', v, '--help'], { env: serverEnv(stateDir()), encoding: 'utf8' });
  is(p.status, 0, `--scratch-ttl ${v}: accepted`);
}
like(spawnSync(server, ['--help'], { encoding: 'utf8' }).stdout, /--scratch-ttl DURATION\|off/, '--help lists --scratch-ttl');

// ---- a short TTL: told, listed, removed, kept when named ------------------------
const a = stateDir();
let { client, call } = await connect(a, { SR_MCP_SCRATCH_TTL: '2s', SR_MCP_WORKSPACE_TTL: '7d' });
let r = await call('run_code', { language: 'bash', code: 'echo hi > made.txt' });
const s1 = sc(r);
ok(!r.isError && /^ws-[0-9a-f]{12}$/.test(s1.workspace_id), 'run_code without workspace_id: a new workspace', r);
is(s1.workspace_scratch, true, 'the result says it is scratch');
ok(Date.parse(s1.workspace_expires_at) - Date.now() < 60000, 'and when it goes: within the scratch TTL', s1.workspace_expires_at);
like(s1.workspace_note, new RegExp(`${s1.workspace_id} is scratch: it is removed at .*2s after its last use.*pass workspace_id ${s1.workspace_id}.*kept then, removed only once unused for 7d`), 'the note: when it goes, how to keep it');
like(text(r), /is scratch: it is removed at/, 'the text says it too');
let e = await entry(call, s1.workspace_id);
ok(e && e.scratch === true && e.expires_at, 'list_workspaces: scratch true, with its expires_at', e);
like(text(await call('list_workspaces', {})), new RegExp(`${s1.workspace_id}  scratch,`), 'its text line says scratch');

r = await call('run_code', { language: 'bash', workspace_id: 'named', code: 'echo x > n.txt' });
ok(!r.isError && sc(r).workspace_scratch === undefined && !/scratch/.test(text(r)), 'a named workspace: no scratch note', r);
e = await entry(call, 'named');
ok(e && e.scratch === false, 'list_workspaces: a named workspace is kept (scratch false)', e);

// kept by a later run_code that names it, and by write_file
r = await call('run_code', { language: 'bash', code: 'true' });
const kr = sc(r).workspace_id;
r = await call('run_code', { language: 'bash', workspace_id: kr, code: 'cat /dev/null' });
ok(!r.isError && sc(r).workspace_scratch === undefined, 'a later run_code naming it: no scratch note any more', r);
r = await call('run_code', { language: 'bash', code: 'true' });
const kw = sc(r).workspace_id;
r = await call('write_file', { workspace_id: kw, path: 'k.txt', content: 'keep' });
ok(!r.isError, 'write_file into another scratch workspace', r);
e = await entry(call, kw);
ok(e && e.scratch === false, 'named by write_file: kept', e);

// import_files without a workspace_id: scratch too
r = await call('import_files', { host_path: 'in.csv' });
const si = sc(r);
ok(!r.isError && si.workspace_scratch === true && /is scratch/.test(text(r)), 'import_files without workspace_id: a scratch workspace, said', r);

ok(await until(() => !existsSync(wsDir(a, s1.workspace_id)), 15), 'the untouched scratch workspace is removed after --scratch-ttl');
ok(await until(() => !existsSync(wsDir(a, si.workspace_id)), 15), 'and the imported one');
ok(!existsSync(join(a, 'ws-scratch', s1.workspace_id)) && !existsSync(join(a, 'ws-used', s1.workspace_id)), 'with its mark and stamp');
r = await call('list_files', { workspace_id: s1.workspace_id });
ok(r.isError && /no workspace/.test(text(r)), 'list_files on it: no such workspace', r);
ok(existsSync(join(wsDir(a, 'named'), 'n.txt')), 'control: the named workspace, as old, stays');
ok(existsSync(wsDir(a, kr)) && existsSync(wsDir(a, kw)), 'the scratch workspaces a later call named stay');
ok((await entry(call, kr))?.scratch === false, 'and are listed as kept');

// ---- a job running past the TTL: never removed under it ----------------------
r = await call('run_code', { language: 'bash', code: 'sleep 5; echo end > end.txt', wait_s: 0 });
const lj = sc(r);
ok(lj.status === 'queued' || lj.status === 'running', 'a job of 5 s in a scratch workspace', lj);
like(lj.workspace_note, /removed 2s after this run ends/, 'while it runs, the note says the TTL counts from its end');
await sleep(3500);
ok(existsSync(wsDir(a, lj.workspace_id)), 'past the TTL, the workspace of the running job is still there');
r = await call('job_status', { job_id: lj.job_id, wait_s: 30 });
is(sc(r).status, 'succeeded', 'the job ends');
ok(existsSync(join(wsDir(a, lj.workspace_id), 'end.txt')), 'its last write is there: nothing was removed under it');
ok(Date.parse(sc(r).workspace_expires_at) > Date.now() - 1000 && sc(r).workspace_scratch === true,
  'the finished result: still scratch, removed the TTL after its end', sc(r));
ok(await until(() => !existsSync(wsDir(a, lj.workspace_id)), 15), 'then removed');
await client.close();

// ---- the marks are on disk: a restarted sr-mcp removes and keeps the same ----
const b = stateDir();
({ client, call } = await connect(b, { SR_MCP_SCRATCH_TTL: '1h' }));
const gone = sc(await call('run_code', { language: 'bash', code: 'true' })).workspace_id;
const kept = sc(await call('run_code', { language: 'bash', code: 'true' })).workspace_id;
await call('list_files', { workspace_id: kept });
await client.close();
({ client, call } = await connect(b, { SR_MCP_SCRATCH_TTL: '1s' }));
ok(await until(() => !existsSync(wsDir(b, gone)), 15), 'after a restart, a scratch workspace of before is removed');
ok(existsSync(wsDir(b, kept)) && (await entry(call, kept))?.scratch === false, 'one a call named before the restart is kept');
await client.close();

// ---- off: no scratch workspaces -----------------------------------------------
const c = stateDir();
({ client, call } = await connect(c, { SR_MCP_SCRATCH_TTL: 'off' }));
r = await call('run_code', { language: 'bash', code: 'true' });
ok(!r.isError && sc(r).workspace_scratch === undefined && !/scratch/.test(text(r)), '--scratch-ttl off: no scratch note', r);
is((await entry(call, sc(r).workspace_id))?.scratch, false, 'and the workspace is kept');
await client.close();
done();
