// quota.mjs - workspace quota and retention through the official SDK v1
// client (which checks each structuredContent against its outputSchema):
// a run that fills its workspace gets ENOSPC and a result that says the
// quota was hit (from sr-jail's report, not from a line the code could
// print: the forgery is tried), write_file refuses to pass the quota, a run that times
// out keeps its files, and idle workspaces are removed (at start-up and
// by the sweeper) but never one a job is running in.
import { mkdirSync, writeFileSync, readFileSync, existsSync, utimesSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, done, stateDir, sc, text, sleep, stdioClient } from './tap.mjs';

const connect = (state, extra) => stdioClient(Client, StdioClientTransport, state, 'sr-test-quota', extra, 120000);
const listed = async (call) => sc(await call('list_workspaces', {})).workspaces || [];

// ---- the quota -------------------------------------------------------------
const state = stateDir();
let { client, call } = await connect(state, { SR_MCP_WORKSPACE_QUOTA: '1M' });
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

let r = await call('sandbox_info', {});
is(sc(r).caps?.workspace_bytes, 1048576, 'sandbox_info gives the workspace quota');
is(sc(r).caps?.workspace_idle_s, 7 * 86400, 'and the retention time (default 7 days)');
is(sc(r).caps?.scratch_idle_s, 3600, 'and a scratch workspace\'s (default 1 hour)');
is(sc(r).caps?.workspace_inodes, 200000, 'and the inode quota (default 200000)');
r = await call('run_code', { language: 'bash', workspace_id: 'small',
  code: 'head -c 100000 /dev/zero > a && echo wrote' });
is(sc(r).stdout, 'wrote\n', 'control: a run under its quota writes');
is(sc(r).quota_hit, false, 'control: quota_hit false under the quota');
is(sc(r).limit_hit, null, 'control: no limit hit');

// The verdict is sr-jail's init's, in a file the code never has open
// (sr-jail --report-fd): the quota's line printed on stderr is not it.
r = await call('run_code', { language: 'bash', workspace_id: 'small', code:
  'echo "sr-jail: warning: /workspace: quota of 1 MiB reached (ENOSPC): writes past it failed" >&2; ' +
  'echo "/workspace: quota of 1 MiB reached" >&2; for fd in /proc/self/fd/* /proc/1/fd/9; do ' +
  'echo "/workspace: quota of 1 MiB reached" 2>/dev/null >> "$fd"; done; ls /proc/self/fd | tr "\\n" " "; exit 1' });
ok(sc(r).quota_hit === false && sc(r).limit_hit === null && !/quota/.test(sc(r).hint || ''),
  'forged: the quota\'s lines printed and written to every descriptor: no quota_hit, no hint', sc(r));
ok(!/(^| )9( |$)/.test(sc(r).stdout), 'the code has no fd 9 (the verdict file\'s)', sc(r).stdout);
r = await call('run_code', { language: 'bash', workspace_id: 'full',
  code: 'head -c 3000000 /dev/zero > big; echo "head: $?"; ls -l big' });
is(sc(r).quota_hit, true, 'a run that fills its workspace: quota_hit', sc(r));
is(sc(r).limit_hit, 'disk', 'limit_hit is "disk"');
like(sc(r).stderr, /No space left on device/, 'the program got ENOSPC');
like(sc(r).hint, /quota of 1 MiB/, 'the hint names the quota');
like(text(r), /quota of 1 MiB/, 'the text block says so too');
let ws = (await listed(call)).find((w) => w.workspace_id === 'full');
ok(ws && ws.bytes > 500000 && ws.bytes <= 1048576, 'what fitted is kept, and no more than the quota', ws);
is(ws && ws.quota, 1048576, 'list_workspaces shows the quota');
ok(ws && ISO.test(ws.last_used) && ISO.test(ws.expires_at), 'list_workspaces shows last_used and expires_at', ws);
ok(ws && Date.parse(ws.expires_at) - Date.parse(ws.last_used) === 7 * 86400 * 1000,
  'expires_at is last_used plus the default 7 days', ws);

r = await call('write_file', { workspace_id: 'small', path: 'b', content: 'x'.repeat(1000000) });
ok(r.isError && /quota of 1048576 bytes/.test(text(r)), 'write_file past the quota is an error naming it', text(r));
r = await call('list_files', { workspace_id: 'small' });
ok(!(sc(r).entries || []).some((e) => e.path === 'b'), 'and writes nothing');
r = await call('write_file', { workspace_id: 'small', path: 'b', content: 'x'.repeat(10000) });
ok(!r.isError, 'control: write_file under the quota writes', text(r));
r = await call('write_file', { workspace_id: 'small', path: 'e', content: 'x' });
r = await call('edit_file', { workspace_id: 'small', path: 'e', old_string: 'x', new_string: 'y'.repeat(950000) });
ok(r.isError && /quota of 1048576 bytes/.test(text(r)), 'edit_file past the quota is an error naming it', text(r));
r = await call('edit_file', { workspace_id: 'small', path: 'e', old_string: 'x', new_string: 'yz' });
ok(!r.isError, 'control: edit_file under the quota edits', text(r));

// ---- the size cache: measured once, then kept up to date -------------------
// STATE/ws-size/ID holds the size the quota starts from: after runs and
// file tools it must equal a fresh measure (list_workspaces walks).
const cacheOf = (id) => {
  try { return Number(readFileSync(join(state, 'ws-size', id), 'utf8').split(' ')[4]); }
  catch { return NaN; }
};
const fresh = async (id) => (await listed(call)).find((w) => w.workspace_id === id)?.bytes;
is(cacheOf('small'), await fresh('small'), 'size cache: agrees after runs, write_file and edit_file');
r = await call('delete_path', { workspace_id: 'small', path: 'b' });
ok(!r.isError, 'delete_path', text(r));
is(cacheOf('small'), await fresh('small'), 'size cache: agrees after delete_path');
r = await call('run_code', { language: 'bash', workspace_id: 'small',
  code: 'rm a; mkdir -p d/e; head -c 4321 /dev/zero > d/e/f; echo hi > g' });
is(cacheOf('small'), await fresh('small'), 'size cache: agrees after a run that removes and adds');
r = await call('run_code', { language: 'bash', workspace_id: 'small',
  code: `test -e ${join(state, 'ws-size', 'small')} && echo visible || echo hidden` });
is(sc(r).stdout, 'hidden\n', 'the size cache is out of the sandbox\'s reach');
// Runs start from the cache (no walk): a cache saying the workspace is
// nearly full leaves a run no room.
const line = readFileSync(join(state, 'ws-size', 'small'), 'utf8').split(' ');
line[4] = String(1048576 - 1000);
writeFileSync(join(state, 'ws-size', 'small'), line.join(' '));
r = await call('run_code', { language: 'bash', workspace_id: 'small', code: 'head -c 20000 /dev/zero > h' });
is(sc(r).quota_hit, true, 'a run starts from the cached size');
writeFileSync(join(state, 'ws-size', 'small'), 'not a cache');
r = await call('run_code', { language: 'bash', workspace_id: 'small', code: 'rm -f h; head -c 20000 /dev/zero > h' });
is(sc(r).quota_hit, false, 'control: a cache that is not one is measured again');
is(cacheOf('small'), await fresh('small'), 'and agrees after');
r = await call('delete_workspace', { workspace_id: 'small' });
ok(!r.isError, 'delete_workspace', text(r));
ok(!existsSync(join(state, 'ws-size', 'small')), 'the size cache of a deleted workspace is removed');

await client.close();

// ---- the inode quota -------------------------------------------------------
// Empty directories take no bytes: without an inode cap a run (and runs
// after it) could make millions. With SR_MCP_WORKSPACE_INODES the kernel
// stops them in the run, what is kept is held to the cap, and write_file
// refuses past it.
const inodes = (st, id) => readdirSync(join(st, 'workspaces', id), { recursive: true }).length;
const dirs = (n, prefix) => `i=0; while [ $i -lt ${n} ]; do mkdir ${prefix}$i 2>/dev/null || break; ` +
  'i=$((i + 1)); done; echo "made $i"';
const stateOff = stateDir();
({ client, call } = await connect(stateOff, { SR_MCP_WORKSPACE_QUOTA: '64M', SR_MCP_WORKSPACE_INODES: '0' }));
r = await call('sandbox_info', {});
is(sc(r).caps?.workspace_inodes, null, 'control: SR_MCP_WORKSPACE_INODES=0 turns the inode quota off');
r = await call('run_code', { language: 'bash', workspace_id: 'many', code: dirs(10000, 'd') });
is(sc(r).stdout, 'made 10000\n', 'control: without an inode quota a run makes 10000 empty directories');
ok(inodes(stateOff, 'many') >= 10000, `control: and they all stay (${inodes(stateOff, 'many')})`);
await client.close();

const stateIn = stateDir();
({ client, call } = await connect(stateIn, { SR_MCP_WORKSPACE_QUOTA: '8M', SR_MCP_WORKSPACE_INODES: '1000' }));
r = await call('sandbox_info', {});
is(sc(r).caps?.workspace_inodes, 1000, 'sandbox_info gives the inode quota');
r = await call('run_code', { language: 'bash', workspace_id: 'many', code: dirs(10000, 'd') });
like(sc(r).stdout, /^made \d+\n$/, 'a run that makes 10000 empty directories under 1000 inodes ends');
ok(Number((sc(r).stdout || '').slice(5)) < 2000, 'it was stopped well before (ENOSPC)', sc(r).stdout);
is(sc(r).quota_hit, true, 'quota_hit');
is(sc(r).limit_hit, 'disk', 'limit_hit is "disk"');
like(sc(r).hint, /quota of 1000 inodes/, 'the hint names the inode quota', sc(r).hint);
ok(inodes(stateIn, 'many') <= 1000, `the workspace holds no more than 1000 (${inodes(stateIn, 'many')})`);
ws = (await listed(call)).find((w) => w.workspace_id === 'many');
is(ws && ws.inode_quota, 1000, 'list_workspaces shows the inode quota');
for (const p of ['a', 'b', 'c']) {
  r = await call('run_code', { language: 'bash', workspace_id: 'many', code: dirs(500, p) });
}
ok(inodes(stateIn, 'many') <= 1000, `repeated runs do not add up past it (${inodes(stateIn, 'many')})`);
const cacheIn = () => Number(readFileSync(join(stateIn, 'ws-size', 'many'), 'utf8').split(' ')[5]);
is(cacheIn(), inodes(stateIn, 'many'), 'the size cache counts the inodes');
r = await call('write_file', { workspace_id: 'many', path: 'new.txt', content: 'x' });
ok(r.isError && /inode quota is 1000/.test(text(r)), 'write_file of a new file past it is an error naming it', text(r));
ok(!existsSync(join(stateIn, 'workspaces', 'many', 'new.txt')), 'and makes nothing');
const kept = readdirSync(join(stateIn, 'workspaces', 'many')).filter((n) => /^[abcd]\d+$/.test(n));
r = await call('run_code', { language: 'bash', workspace_id: 'many',
  code: `rmdir ${kept.slice(0, 3).join(' ')} && mkdir fresh && echo done` });
is(sc(r).stdout, 'done\n', 'at the cap a run can still remove, and make in the room it made');
is(inodes(stateIn, 'many'), 998, 'and what it did is kept');
r = await call('write_file', { workspace_id: 'many', path: 'x/y/z.txt', content: 'x' });
ok(r.isError && /would make 3 more/.test(text(r)), 'write_file counts the directories it would make', text(r));
r = await call('run_code', { language: 'bash', workspace_id: 'many', code: `rmdir ${kept[3]}` });
r = await call('write_file', { workspace_id: 'many', path: 'x/y/z.txt', content: 'x' });
ok(!r.isError, 'control: with room for them it writes', text(r));
r = await call('write_file', { workspace_id: 'many', path: 'x/y/z.txt', content: 'rewritten' });
ok(!r.isError, 'rewriting an existing file needs no room', text(r));
is(cacheIn(), inodes(stateIn, 'many'), 'the size cache agrees after the file tools');
await client.close();
({ client, call } = await connect(state, { SR_MCP_WORKSPACE_QUOTA: '1M' }));

r = await call('run_code', { language: 'bash', workspace_id: 'slow', timeout_s: 1,
  code: 'echo kept > kept.txt; sleep 60' });
is(sc(r).status, 'timed_out', 'a run that times out');
r = await call('read_file', { workspace_id: 'slow', path: 'kept.txt' });
like(text(r), /kept/, 'keeps the files it wrote');
r = await call('run_code', { language: 'bash', workspace_id: 'cancelled', wait_s: 0,
  code: 'echo c > c.txt; touch started; sleep 60' });
const cj = sc(r).job_id;
for (let i = 0; i < 50; i++) {
  r = await call('job_status', { job_id: cj, wait_s: 0 });
  if (sc(r).status === 'running') break;
  await sleep(200);
}
await sleep(1000);
await call('cancel_job', { job_id: cj });
r = await call('job_status', { job_id: cj, wait_s: 20 });
is(sc(r).status, 'cancelled', 'a run cancelled');
r = await call('list_files', { workspace_id: 'cancelled' });
ok(!(sc(r).entries || []).some((e) => e.path === 'c.txt'), 'what a cancelled run wrote is not kept', sc(r));
await client.close();

// ---- retention -------------------------------------------------------------
// An idle workspace from before: its stamp an hour old, removed at start-up.
const state2 = stateDir();
mkdirSync(join(state2, 'workspaces/old'), { recursive: true });
writeFileSync(join(state2, 'workspaces/old/f'), 'x');
mkdirSync(join(state2, 'ws-used'));
writeFileSync(join(state2, 'ws-used/old'), '');
const hourAgo = new Date(Date.now() - 3600 * 1000);
utimesSync(join(state2, 'ws-used/old'), hourAgo, hourAgo);
mkdirSync(join(state2, 'workspaces/recent'));
writeFileSync(join(state2, 'ws-used/recent'), '');
({ client, call } = await connect(state2, { SR_MCP_WORKSPACE_TTL: '1m' }));
for (let i = 0; i < 100 && existsSync(join(state2, 'workspaces/old')); i++) await sleep(100);
ok(!existsSync(join(state2, 'workspaces/old')), 'at start-up a workspace idle past the TTL is removed');
ok(existsSync(join(state2, 'workspaces/recent')), 'control: a recently used one stays');
await client.close();

({ client, call } = await connect(state2, { SR_MCP_WORKSPACE_TTL: '2s' }));
r = await call('write_file', { workspace_id: 'idle', path: 'f', content: 'x' });
ok(!r.isError, 'a workspace used once');
r = await call('run_code', { language: 'bash', workspace_id: 'busy', code: 'sleep 9; echo done', wait_s: 0 });
ok(['queued', 'running'].includes(sc(r).status), 'a job left running in another', sc(r));
const job = sc(r).job_id;
await sleep(6000);
const names = (await listed(call)).map((w) => w.workspace_id);
ok(!names.includes('idle'), 'the sweeper removed the workspace idle past the TTL', names);
ok(names.includes('busy'), 'but not the one a job is running in', names);
r = await call('job_status', { job_id: job, wait_s: 30 });
is(sc(r).stdout, 'done\n', 'the job in it ran to its end');
await client.close();
done();
