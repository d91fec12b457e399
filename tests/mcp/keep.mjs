// keep.mjs - run_code with keep_workspace false leaves nothing behind
// (E2B's create_run_close): the result comes in the call, the scratch
// workspace is gone from disk and from list_workspaces, the result says so
// and offers no resource_link to a file that is no more; images still come
// inline. The control: the same run without the flag leaves its workspace,
// with links. Refused: with a workspace_id (a named workspace is never
// removed by it; it is still there after), with session, not a boolean.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, done, stateDir, sc, text, stdioClient } from './tap.mjs';

const state = stateDir();
const { client, call } = await stdioClient(Client, StdioClientTransport, state, 'sr-test-keep');
const wsDir = (id) => join(state, 'workspaces', id);
const listed = async (id) => (sc(await call('list_workspaces', {})).workspaces || [])
  .some((w) => w.workspace_id === id);
const links = (r) => (r.content || []).filter((c) => c.type === 'resource_link');
const PNG = 'printf \'\\x89PNG\\r\\n\\x1a\\n\\0\\0\\0\\rIHDR\\0\\0\\0\\1\\0\\0\\0\\1\\b\\2\\0\\0\\0\\x90wS\\xde\\0\\0\\0\\fIDATx\\x9cc\\xf8\\xcf\\xc0\\0\\0\\3\\1\\1\\0\\xc9\\xfe\\x92\\xef\\0\\0\\0\\0IEND\\xaeB`\\x82\' > outputs/dot.png';
const code = `echo made > made.txt; mkdir -p sub; echo deep > sub/d.txt; ${PNG}; echo out-$((6*7))`;

// the control: without the flag the workspace stays, with its links
let r = await call('run_code', { language: 'bash', code });
const kept = sc(r).workspace_id;
ok(!r.isError && kept && existsSync(wsDir(kept)), 'control: without keep_workspace the workspace is on disk', r);
ok(await listed(kept), 'control: and in list_workspaces');
ok(links(r).some((l) => l.name === 'made.txt'), 'control: made.txt as a resource_link', links(r));
const hp = links(r).find((l) => l.name === 'made.txt')?._meta?.['dev.sr/host_path'];
ok(hp === join(wsDir(kept), 'made.txt') && readFileSync(hp, 'utf8') === 'made\n', 'over stdio the link carries the file\'s host path (_meta dev.sr/host_path), readable there', links(r));

// keep_workspace false: gone, said, no dead links; the output and image are there
for (const [what, extra] of [['bash', {}], ['wait_s 0 (the call waits anyway)', { wait_s: 0 }],
  ['a failing run', { code: `${code}; exit 3` }]]) {
  r = await call('run_code', { language: 'bash', code, keep_workspace: false, ...extra });
  const s = sc(r), id = s.workspace_id;
  ok(/^ws-[0-9a-f]{12}$/.test(id || ''), `${what}: the result names its workspace`, r);
  like(s.stdout, /out-42/, `${what}: the output is in the result (it ended within the call)`);
  is(s.workspace_removed, true, `${what}: workspace_removed true`);
  ok(!existsSync(wsDir(id)), `${what}: the workspace is gone from disk`, wsDir(id));
  ok(!(await listed(id)), `${what}: and from list_workspaces`);
  is(links(r).length, 0, `${what}: no resource_link (its files are gone)`);
  like(text(r), new RegExp(`Workspace ${id} was removed with all its files.*files listed are gone`), `${what}: the text says so`);
  ok(s.workspace_scratch === undefined && !/is scratch/.test(text(r)), `${what}: no scratch note (nothing to keep)`, r);
  ok((r.content || []).some((c) => c.type === 'image'), `${what}: the image still comes inline`);
}
// a run that times out: removed too
r = await call('run_code', { language: 'bash', code: 'echo x > t.txt; sleep 60', timeout_s: 1, keep_workspace: false });
ok(sc(r).status !== 'running' && sc(r).workspace_removed === true && !existsSync(wsDir(sc(r).workspace_id)),
  'a run that timed out: ended within the call, workspace removed', sc(r));

// refused: a named workspace (and it survives), a session, a non-boolean
r = await call('run_code', { language: 'bash', code: 'echo n > n.txt', workspace_id: 'named' });
ok(!r.isError && existsSync(wsDir('named')), 'a named workspace made');
r = await call('run_code', { language: 'bash', code: 'rm -f n.txt', workspace_id: 'named', keep_workspace: false });
ok(r.isError, 'keep_workspace false with a workspace_id: refused', r);
like(text(r), /a named workspace is never removed by it/, 'the refusal says why');
ok(existsSync(join(wsDir('named'), 'n.txt')), 'the named workspace and its file are intact (the code did not run)');
r = await call('run_code', { language: 'bash', code: 'true', workspace_id: 'named', keep_workspace: true });
ok(!r.isError && existsSync(wsDir('named')), 'keep_workspace true with a workspace_id: runs, kept', r);
r = await call('run_code', { language: 'python', code: '1', session: true, keep_workspace: false });
ok(r.isError && /session keeps its workspace/.test(text(r)), 'with session: refused, saying why', r);
r = await call('run_code', { language: 'bash', code: 'true', keep_workspace: 'no' });
ok(r.isError && /keep_workspace must be/.test(text(r)), 'not a boolean: refused', r);

await client.close();
done();
