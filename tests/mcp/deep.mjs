// deep.mjs - what a run can leave in a workspace must not crash sr-mcp
// nor escape its result cap (tests/87-mcp-deep.t, under a small
// RLIMIT_NOFILE). Trees deeper than any stack or descriptor table allows,
// with directories the run made unreadable, are listed, counted and
// removed; a workspace of long names and long link targets is listed in
// pages, each under 1 MiB with a note saying how to go on, that reach
// every entry exactly once; resources/list pages with nextCursor.
import { mkdirSync, chmodSync, symlinkSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, done, diag, server, stateDir, serverEnv, sc, text } from './tap.mjs';

const state = stateDir();
const client = new Client({ name: 'sr-test-deep', version: '1' });
await client.connect(new StdioClientTransport({ command: server, args: [], stderr: 'pipe',
  env: serverEnv(state, { SR_MCP_WORKSPACE_QUOTA: 'off' }) }));
const T = { timeout: 120000 };
const call = (name, args) => client.callTool({ name, arguments: args }, undefined, T);
const CAP = 1 << 20;
const size = (r) => Buffer.byteLength(JSON.stringify(r));
const alive = async (what) => {
  const r = await client.listTools().catch((e) => ({ error: String(e) }));
  ok(Array.isArray(r.tools), `${what}: sr-mcp still answers`, r.error || '');
};
const wsdir = (ws) => join(state, 'workspaces', ws);

// A chain of `depth` directories named `name` below dir, made one level
// at a time (no path is longer than a name); every `closeEvery` levels a
// directory is left mode 000, and one 0500.
function chain(dir, depth, name = 'd', closeEvery = 250) {
  const back = process.cwd();
  process.chdir(dir);
  for (let i = 1; i <= depth; i++) {
    mkdirSync(name);
    process.chdir(name);
    writeFileSync('f', 'x');
    if (i % closeEvery === closeEvery / 2) chmodSync('..', 0o000);
    if (i === 7) chmodSync('..', 0o500);
  }
  process.chdir(back);
}

// 1. A run makes 60 levels: the depth that broke the recursive walk.
const run = await call('run_code', { language: 'bash', workspace_id: 'deep60',
  code: 'for i in $(seq 60); do mkdir d; cd d; done; echo deep > f; echo made' });
is(sc(run).stdout, 'made\n', 'run_code makes a tree 60 levels deep');
let r = await call('list_files', { workspace_id: 'deep60', recursive: true });
ok(!r.isError && (sc(r).entries || []).length === 62, 'list_files (recursive) lists the 60 levels, the file at the bottom and outputs/',
  (sc(r).entries || []).length);
await alive('after list_files of 60 levels');
r = await call('list_workspaces', {});
ok((sc(r).workspaces || []).some((w) => w.workspace_id === 'deep60'), 'list_workspaces counts it');
await alive('after list_workspaces');
const res = await client.listResources().catch((e) => ({ error: String(e) }));
ok(Array.isArray(res.resources), 'resources/list walks it', res.error || '');
await alive('after resources/list');
await call('run_code', { language: 'bash', workspace_id: 'deep60',
  code: 'cd d/d/d; chmod 000 d; cd ..; chmod 0500 d; cd ..; chmod 0100 d' });
r = await call('delete_workspace', { workspace_id: 'deep60' });
ok(!r.isError && !existsSync(wsdir('deep60')), 'delete_workspace removes it, the directory the run closed included', text(r));

// 2. 3000 levels, made on the host (a run's own path limit stops near
// 2048 levels), some closed (mode 000 and 0500): listed, counted, removed.
mkdirSync(wsdir('deep3k'), { recursive: true });
chain(wsdir('deep3k'), 3000, 'd', 100000);
let entries = [], notes = '', sizes3 = [], off3 = 0;
for (let p = 0; p < 100; p++) {
  r = await call('list_files', { workspace_id: 'deep3k', recursive: true, offset: off3 });
  if (r.isError) break;
  sizes3.push(size(r));
  entries.push(...sc(r).entries);
  notes += sc(r).note || '';
  if (sc(r).next_offset === undefined) break;
  off3 = sc(r).next_offset;
}
const cut = entries.filter((e) => e.path_cut);
ok(!r.isError && entries.length === 6000 && cut.length > 0 && /path longer than 4095 bytes is cut/.test(notes),
  `list_files of 3000 levels: every entry in ${sizes3.length} pages, the note says paths were cut`, text(r).slice(-400));
ok(entries.every((e) => Buffer.byteLength(e.path) <= 4099 && (!e.path_cut || e.path.endsWith('/...'))) &&
  entries.filter((e) => !e.path_cut).every((e) => /^(d\/)*[df]$/.test(e.path)),
  'a path over 4095 bytes is never mangled: it is marked path_cut, its ancestor then /...', cut.slice(0, 1));
ok(sizes3.every((s) => s < CAP), `each page is under 1 MiB (the largest ${Math.max(...sizes3)} bytes)`);
await alive('after list_files of 3000 levels');
r = await call('list_workspaces', {});
const w3 = (sc(r).workspaces || []).find((w) => w.workspace_id === 'deep3k');
ok(w3 && w3.files === 3000 && !w3.partial, 'list_workspaces counts the 3000 files', w3);
await alive('after list_workspaces with 3000 levels');
ok(Array.isArray((await client.listResources()).resources), 'resources/list with 3000 levels');
r = await call('delete_path', { workspace_id: 'deep3k', path: 'd' });
ok(!r.isError && readdirSync(wsdir('deep3k')).length === 0, 'delete_path removes the 3000 levels', text(r));
chain(wsdir('deep3k'), 3000);
r = await call('list_files', { workspace_id: 'deep3k', recursive: true });
ok(!r.isError && (sc(r).entries || []).length > 200, 'list_files of 3000 levels closed every 250: what can be read is listed');
r = await call('delete_path', { workspace_id: 'deep3k', path: 'd' });
ok(!r.isError && readdirSync(wsdir('deep3k')).length === 0, 'delete_path removes 3000 levels with closed directories (000, 0500)', text(r));
chain(wsdir('deep3k'), 3000);
r = await call('delete_workspace', { workspace_id: 'deep3k' });
ok(!r.isError && !existsSync(wsdir('deep3k')), 'delete_workspace removes 3000 levels with closed directories', text(r));
await alive('after the removals');

// 3. Long names, long link targets, many entries: pages under the cap.
const wide = wsdir('wide');
mkdirSync(wide, { recursive: true });
const N = 400, long = (i, c) => `${String(i).padStart(4, '0')}${c.repeat(251)}`;
const target = '/' + 't'.repeat(4093) + '"';     // 4095 bytes, one of them escaped in JSON
for (let i = 0; i < N; i++) symlinkSync(target, join(wide, long(i, 'l')));
let seen = [], offset = 0, pages = 0, sizes = [];
for (;;) {
  r = await call('list_files', { workspace_id: 'wide', offset });
  pages++;
  sizes.push(size(r));
  if (r.isError || pages > 50) break;
  seen.push(...sc(r).entries.map((e) => e.path));
  if (!sc(r).truncated) break;
  if (!ok(Number.isInteger(sc(r).next_offset) && new RegExp(`offset ${sc(r).next_offset}`).test(text(r)),
    `page ${pages}: the note names the next offset`, text(r).slice(-300))) break;
  offset = sc(r).next_offset;
}
ok(pages > 1 && sizes.every((s) => s < CAP), `list_files: ${pages} pages, each under 1 MiB (${sizes.join(', ')})`);
is(seen.length, N, 'the pages hold every entry');
ok(new Set(seen).size === N && seen.every((p, i) => p === long(i, 'l')), 'each exactly once, in name order');

// resources/list: 300 files 4000 bytes deep, in pages by nextCursor.
let d = wide;
for (let i = 0; i < 15; i++) { d = join(d, 'D'.repeat(255)); }
mkdirSync(d, { recursive: true });
for (let i = 0; i < 300; i++) writeFileSync(join(d, `${String(i).padStart(3, '0')}${'f'.repeat(150)}`), 'x');
let cursor, rpages = 0, rsizes = [], got = [];
do {
  const lr = await client.request({ method: 'resources/list', params: cursor ? { cursor } : {} },
    (await import('@modelcontextprotocol/sdk/types.js')).ListResourcesResultSchema);
  rpages++;
  rsizes.push(size(lr));
  got.push(...lr.resources.filter((x) => x.name.startsWith('wide/')).map((x) => x.name));
  cursor = lr.nextCursor;
} while (cursor && rpages < 50);
ok(rpages > 1 && rsizes.every((s) => s < CAP), `resources/list: ${rpages} pages by nextCursor, each under 1 MiB (${rsizes.join(', ')})`);
ok(got.length === 300 && new Set(got).size === 300, 'resources/list: every file exactly once', got.length);
r = await client.request({ method: 'resources/list', params: { cursor: 'x' } },
  (await import('@modelcontextprotocol/sdk/types.js')).ListResourcesResultSchema).catch((e) => e);
like(r && r.message, /cursor/, 'resources/list: a bad cursor is an error that says so');

// list_workspaces: more than a page.
for (let i = 0; i < 205; i++) mkdirSync(wsdir(`w${String(i).padStart(3, '0')}`));
r = await call('list_workspaces', {});
const first = sc(r).workspaces || [];
ok(first.length === 200 && Number.isInteger(sc(r).next_offset) && /offset 200/.test(text(r)) && size(r) < CAP,
  'list_workspaces: a page of 200, and the note names the next offset', sc(r).next_offset);
r = await call('list_workspaces', { offset: sc(r).next_offset });
const all = [...first, ...(sc(r).workspaces || [])].map((w) => w.workspace_id);
ok(all.length === 206 && new Set(all).size === 206 && sc(r).next_offset === undefined,
  'list_workspaces: the second page has the rest, each once', all.length);
await alive('at the end');
await client.close();
done();
