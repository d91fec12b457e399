// listings.mjs - listings a model can read, through the official SDK v1
// client (which checks each structuredContent against the tool's
// outputSchema): after what an npm and a pip install leave (node_modules,
// .sr/python) and Python's byte code (__pycache__), list_files (one
// directory or the whole tree) and resources/list leave those directories
// out, name each with the number of entries it holds and say how to list
// them; include_hidden lists everything (the control: the directories and
// their files are there), a path into one lists it, a file or a link that
// bears such a name is listed, and the cursor of resources/list keeps the
// choice from page to page.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListResourcesResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { ok, is, like, done, stateDir, sc, text, stdioClient } from './tap.mjs';

const state = stateDir();
const { client, call } = await stdioClient(Client, StdioClientTransport, state, 'sr-test-listings', {}, 120000);
const HIDDEN = /(^|\/)(node_modules|\.sr|__pycache__|\.venv)(\/|$)/;

// descriptions say so
const { tools } = await client.listTools();
const lf = tools.find((t) => t.name === 'list_files');
like(lf.description, /node_modules, \.sr, __pycache__.*left out unless include_hidden/, 'list_files says which directories it leaves out');
is(lf.inputSchema.properties.include_hidden?.type, 'boolean', 'and takes include_hidden');

// what an npm install, a pip install and Python leave, and the user's files
const ws = 'lst';
let r = await call('run_code', { language: 'bash', workspace_id: ws, code: `set -e
mkdir -p src/__pycache__ data notes sub/node_modules node_modules/left-pad node_modules/.bin node_modules/@s/p
echo 'print(1)' > src/a.py; echo x > src/__pycache__/a.cpython-311.pyc; echo a,b > data/x.csv
echo 'module.exports=1' > node_modules/left-pad/index.js; echo '{}' > node_modules/left-pad/package.json
echo x > node_modules/.bin/x; echo 'q' > node_modules/@s/p/q.js; echo y > sub/node_modules/y.js
mkdir -p .sr/python/numpy/core .venv/bin; echo > .sr/python/numpy/__init__.py; echo > .sr/python/numpy/core/x.py
echo > .venv/bin/activate; echo 'not a directory' > notes/node_modules; ln -s ../src notes/__pycache__
echo ok` });
is(sc(r).status, 'succeeded', 'the tree is made', r);

r = await call('list_files', { workspace_id: ws, recursive: true });
let s = sc(r), paths = s.entries.map((e) => e.path);
ok(!r.isError && paths.includes('src/a.py') && paths.includes('data/x.csv'), 'list_files recursive: the user\'s files', paths);
ok(!paths.some((p) => HIDDEN.test(p) && p !== 'notes/node_modules' && p !== 'notes/__pycache__'), 'and none of node_modules, .sr, __pycache__, .venv or beneath', paths);
ok(paths.includes('notes/node_modules') && s.entries.find((e) => e.path === 'notes/__pycache__')?.type === 'symlink', 'a file and a link bearing such a name are listed', paths);
const hd = Object.fromEntries((s.hidden_dirs || []).map((h) => [h.path, h.entries]));
is(JSON.stringify(hd), JSON.stringify({ '.sr': 5, '.venv': 2, node_modules: 8, 'src/__pycache__': 1, 'sub/node_modules': 1 }), 'hidden_dirs: each left out, with the entries it holds');
like(text(r), /left out: \.sr\/ \(5 entries\), \.venv\/ \(2 entries\), node_modules\/ \(8 entries\).*include_hidden true lists them/, 'the text says so and how to list them');

r = await call('list_files', { workspace_id: ws });
s = sc(r);
ok(!s.entries.some((e) => HIDDEN.test(e.path)) && s.entries.some((e) => e.path === 'src'), 'the top directory alone: the hidden directories left out too', s.entries);
ok((s.hidden_dirs || []).some((h) => h.path === 'node_modules' && h.entries === 8), 'and named with their entries', s.hidden_dirs);

r = await call('list_files', { workspace_id: ws, recursive: true, include_hidden: true });
s = sc(r); paths = s.entries.map((e) => e.path);
ok(['node_modules/left-pad/index.js', 'node_modules/@s/p/q.js', '.sr/python/numpy/core/x.py', 'src/__pycache__/a.cpython-311.pyc', '.venv/bin/activate', 'sub/node_modules/y.js']
  .every((p) => paths.includes(p)), 'control: include_hidden true lists every one of them', paths);
ok(s.hidden_dirs === undefined && !/left out/.test(text(r)), 'with no note then');

r = await call('list_files', { workspace_id: ws, path: 'node_modules', recursive: true });
paths = sc(r).entries.map((e) => e.path);
ok(paths.includes('node_modules/left-pad/index.js') && paths.length === 8, 'a path into one lists what it holds', paths);
r = await call('list_files', { workspace_id: ws, recursive: true, glob: '*.js' });
paths = sc(r).entries.map((e) => e.path);
is(paths.length, 0, 'glob *.js: none, the .js files are all in node_modules');
ok((sc(r).hidden_dirs || []).length === 5, 'and the hidden directories are named');
r = await call('list_files', { workspace_id: ws, recursive: true, glob: '*.js', include_hidden: true });
is(sc(r).entries.length, 3, 'glob *.js with include_hidden: the three');

// ---- resources/list -----------------------------------------------------------
let l = await client.listResources();
let uris = l.resources.map((x) => x.uri);
ok(uris.includes('sr://workspaces/lst/files/src/a.py'), 'resources/list: the user\'s files', uris);
ok(!uris.some((u) => HIDDEN.test(u.replace(/^sr:\/\/workspaces\/[^/]+\/files\//, '')) && !u.endsWith('/notes/node_modules')), 'and none in the hidden directories (the file notes/node_modules is one)', uris);
const mh = l._meta?.['sr/hidden_dirs'] || [];
ok(mh.some((h) => h.workspace_id === ws && h.path === 'node_modules' && h.entries === 8), '_meta sr/hidden_dirs names them with their entries', l._meta);
like(l._meta?.['sr/note'], /include_hidden true/, '_meta sr/note says how to list them');
l = await client.request({ method: 'resources/list', params: { include_hidden: true } }, ListResourcesResultSchema);
uris = l.resources.map((x) => x.uri);
ok(uris.includes('sr://workspaces/lst/files/node_modules/left-pad/index.js') && uris.includes('sr://workspaces/lst/files/.sr/python/numpy/core/x.py'),
  'control: resources/list with include_hidden true lists them', uris);
const rd = await client.readResource({ uri: 'sr://workspaces/lst/files/node_modules/left-pad/index.js' });
like(rd.contents[0].text, /module\.exports=1/, 'resources/read reads a file of one');

// pages: the cursor keeps include_hidden
r = await call('run_code', { language: 'bash', workspace_id: 'many', code: 'mkdir -p node_modules/m && cd node_modules/m && for i in $(seq 1 1100); do : > f$i.js; done; echo > ../../top.txt' });
is(sc(r).status, 'succeeded', 'a workspace of 1100 package files');
l = await client.listResources();
ok(!l.nextCursor && l.resources.some((x) => x.uri.endsWith('/many/files/top.txt')), 'resources/list: one page, without them');
l = await client.request({ method: 'resources/list', params: { include_hidden: true } }, ListResourcesResultSchema);
like(l.nextCursor, /^all:1000$/, 'include_hidden: a full page and a cursor that keeps it');
const l2 = await client.request({ method: 'resources/list', params: { cursor: l.nextCursor } }, ListResourcesResultSchema);
ok(l2.resources.some((x) => /\/many\/files\/node_modules\/m\/f\d+\.js$/.test(x.uri)) && !l2.nextCursor, 'the next page goes on with them', l2.resources.length);
is(new Set([...l.resources, ...l2.resources].map((x) => x.uri)).size, l.resources.length + l2.resources.length, 'no resource twice');
await client.close();
done();
