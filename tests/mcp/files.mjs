// files.mjs - the workspace file tools through the official SDK v1 client
// (which checks each structuredContent against the tool's outputSchema):
// write, read, edit, list and delete, a PNG made in the sandbox read back
// as an image block, and every way out the sandboxed code could plant
// (.., absolute paths, symbolic links to the user's files, a linked
// directory on the way, a link swapped in between calls, fifos, device
// nodes, hard links), each refused with the target's bytes unchanged.
import { mkdtempSync, writeFileSync, readFileSync, mkdirSync, existsSync, linkSync, readdirSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, skip, done, diag, server, stateDir, serverEnv, sc, text } from './tap.mjs';

const state = stateDir();
// The user's files, outside every workspace: a key in a fake home.
const home = mkdtempSync(`${process.env.TMPDIR || '/tmp'}/sr-files-home.`);
mkdirSync(join(home, '.ssh'));
const key = join(home, '.ssh/id_rsa');
const KEY = 'PRIVATE-KEY do not touch\n';
writeFileSync(key, KEY);
const untouched = (desc) => {
  is(readFileSync(key, 'utf8'), KEY, `${desc}: the key's bytes are unchanged`);
};

const client = new Client({ name: 'sr-test-files', version: '1' });
await client.connect(new StdioClientTransport({ command: server, args: [], stderr: 'pipe',
  // Quota off: a plain bind, where the sandboxed code's fifos reach the
  // host directory (with a quota they are not carried over).
  env: serverEnv(state, { HOME: home, SR_MCP_WORKSPACE_QUOTA: 'off' }) }));
const T = { timeout: 120000 };
const call = (name, args) => client.callTool({ name, arguments: args }, undefined, T);
const sh = async (ws, code) => sc(await call('run_code', { language: 'bash', workspace_id: ws, code }));

// tools/list: the seven tools, their annotations, read_file without outputSchema.
const { tools } = await client.listTools();
const tool = (n) => tools.find((t) => t.name === n);
for (const n of ['list_workspaces', 'delete_workspace', 'list_files', 'read_file', 'write_file', 'edit_file', 'delete_path'])
  ok(tool(n) && /^[a-zA-Z0-9_-]{1,64}$/.test(n), `tools/list offers ${n}`);
for (const n of ['list_workspaces', 'list_files', 'read_file'])
  is(tool(n).annotations?.readOnlyHint, true, `${n} is read-only`);
for (const n of ['write_file', 'edit_file'])
  is(tool(n).annotations?.readOnlyHint, false, `${n} is not read-only`);
for (const n of ['delete_workspace', 'delete_path'])
  is(tool(n).annotations?.destructiveHint, true, `${n} is destructive`);
ok(['list_workspaces', 'delete_workspace', 'list_files', 'read_file', 'write_file', 'edit_file', 'delete_path']
  .every((n) => tool(n).annotations?.openWorldHint === false), 'the file tools: openWorldHint false');
is(tool('read_file').outputSchema, undefined, 'read_file declares no outputSchema (its image blocks pass through)');
const noItems = (s) => !s || typeof s !== 'object' ? false : (s.type === 'array' && !s.items) || Object.values(s).some(noItems);
ok(!tools.some((t) => noItems(t.inputSchema) || noItems(t.outputSchema)), 'every array in every schema has items');

// A CSV: written, read back, used by run_code, edited, listed.
const ws = 'files-csv';
let r = await call('write_file', { workspace_id: ws, path: 'data/t.csv', content: 'a,b\n1,2\n3,4\n' });
ok(!r.isError && sc(r).bytes === 12, 'write_file makes the workspace and data/, and writes the CSV', r);
r = await call('read_file', { workspace_id: ws, path: 'data/t.csv' });
like(text(r), /^     1\ta,b\n     2\t1,2\n     3\t3,4\n\(data\/t\.csv: lines 1-3 of 3\)/, 'read_file: numbered lines and "lines 1-3 of 3"');
is(r.structuredContent, undefined, 'read_file returns no structuredContent');
r = await call('read_file', { workspace_id: ws, path: '/workspace/data/t.csv', offset_line: 2, limit_lines: 1 });
like(text(r), /^     2\t1,2\n\(data\/t\.csv: lines 2-2 of 3; more with offset_line 3\)/, 'read_file: /workspace/… is taken, offset_line and limit_lines');
let run = await call('run_code', { language: 'python', workspace_id: ws,
  code: 'import csv\nprint(sum(int(r["b"]) for r in csv.DictReader(open("data/t.csv"))))' });
is(sc(run).stdout, '6\n', 'run_code in the same workspace reads the file write_file wrote');
r = await call('edit_file', { workspace_id: ws, path: 'data/t.csv', old_string: '3,4', new_string: '3,40' });
is(sc(r).replacements, 1, 'edit_file replaces the one match');
run = await call('run_code', { language: 'python', workspace_id: ws,
  code: 'import csv\nprint(sum(int(r["b"]) for r in csv.DictReader(open("data/t.csv"))))' });
is(sc(run).stdout, '42\n', 'run_code sees the edit');
r = await call('edit_file', { workspace_id: ws, path: 'data/t.csv', old_string: ',', new_string: ';' });
ok(r.isError && /occurs 3 times/.test(text(r)), 'edit_file: an ambiguous old_string is an error that says how many matches', text(r));
r = await call('edit_file', { workspace_id: ws, path: 'data/t.csv', old_string: 'zzz', new_string: 'y' });
ok(r.isError && /not found/.test(text(r)), 'edit_file: no match is an error', text(r));
r = await call('edit_file', { workspace_id: ws, path: 'data/t.csv', old_string: ',', new_string: ';', replace_all: true });
is(sc(r).replacements, 3, 'edit_file: replace_all replaces every match');
r = await call('write_file', { workspace_id: ws, path: 'data/t.csv', content: '5;6\n', append: true });
is(sc(r).size, 17, 'write_file: append adds at the end');
r = await call('list_files', { workspace_id: ws, recursive: true });
const csv = (sc(r).entries || []).find((e) => e.path === 'data/t.csv');
ok(csv && csv.type === 'file' && csv.bytes === 17 && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(csv.mtime) &&
  sc(r).entries.some((e) => e.path === 'data' && e.type === 'dir') && sc(r).truncated === false,
  'list_files (recursive) shows data/ and data/t.csv with its size and mtime', sc(r));
r = await call('list_files', { workspace_id: ws, recursive: true, glob: '*.csv' });
is((sc(r).entries || []).map((e) => e.path).join(','), 'data/t.csv', 'list_files: glob by name');
await sh(ws, "mkdir many && cd many && touch f{1..1100} $'bad\\xff\\x1b.txt'");
r = await call('list_files', { workspace_id: ws, path: 'many' });
ok(sc(r).entries?.length === 1000 && sc(r).truncated === true, 'list_files: at most 1000 entries, then truncated', sc(r).entries?.length);
r = await call('list_files', { workspace_id: ws, path: 'many', glob: 'bad*' });
ok(sc(r).entries?.[0]?.invalid_utf8 === true && /^many\/bad\uFFFD\u241B\.txt$/.test(sc(r).entries[0].path),
  'list_files: a name that is not UTF-8 is made safe and flagged', sc(r).entries);
await call('delete_path', { workspace_id: ws, path: 'many' });
r = await call('write_file', { workspace_id: ws, path: 'bin.dat', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' });
is(sc(r).bytes, 4, 'write_file: base64 content');
r = await call('read_file', { workspace_id: ws, path: 'bin.dat' });
ok(!r.isError && /binary data.*4 bytes/.test(text(r)), 'read_file: other binary is described, not shown', text(r));

// A PNG made by Python's standard library in the sandbox, read back as an image block.
run = await call('run_code', { language: 'python', workspace_id: ws, code: `
import zlib, struct
w = h = 8
raw = b"".join(b"\\x00" + bytes([255, 0, 0]) * w for _ in range(h))
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
open("plot.png", "wb").write(b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
open("huge.png", "wb").write(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(800 * 1024))
` });
is(sc(run).status, 'succeeded', 'run_code writes a PNG with zlib and struct');
r = await call('read_file', { workspace_id: ws, path: 'plot.png' });
const img = (r.content || []).find((c) => c.type === 'image');
ok(img && img.mimeType === 'image/png' && Buffer.from(img.data, 'base64').subarray(0, 8).equals(Buffer.from('\x89PNG\r\n\x1a\n', 'latin1')),
  'read_file: the PNG comes back as an image block whose data has the PNG signature', r.content?.map((c) => c.type));
ok(!r.isError && r.structuredContent === undefined, 'read_file: the image result has no structuredContent');
r = await call('read_file', { workspace_id: ws, path: 'huge.png' });
ok(r.isError && /700 KB/.test(text(r)) && !(r.content || []).some((c) => c.type === 'image'), 'read_file: an image over 700 KB is refused with a note', text(r));
await sh(ws, 'head -c 11M /dev/zero > big');
r = await call('read_file', { workspace_id: ws, path: 'big' });
ok(r.isError && /10 MiB/.test(text(r)), 'read_file: a file over 10 MiB is refused, naming the cap', text(r));

// Ways out.
const ev = 'files-evil';
await call('write_file', { workspace_id: ev, path: 'ok.txt', content: 'fine\n' });
const refused = (res, re, desc) => ok(res.isError && re.test(text(res)), desc, text(res));
for (const p of ['../../../../../../..' + key, '../files-csv/data/t.csv', './../x'])
  refused(await call('read_file', { workspace_id: ev, path: p }), /escapes the workspace/, `read_file ${p}: path escapes the workspace`);
refused(await call('read_file', { workspace_id: ev, path: key }), /escapes the workspace/, 'read_file of an absolute path outside: refused');
refused(await call('write_file', { workspace_id: ev, path: key, content: 'owned' }), /escapes the workspace/, 'write_file of an absolute path outside: refused');
untouched('write_file absolute');
refused(await call('write_file', { workspace_id: ev, path: '../../escaped.txt', content: 'owned' }), /escapes the workspace/, 'write_file ../../: refused');
ok(!existsSync(join(state, 'escaped.txt')) && !existsSync(join(state, 'workspaces/escaped.txt')), 'write_file ../../: nothing written outside');
refused(await call('list_files', { workspace_id: ev, path: '..' }), /escapes the workspace/, 'list_files ..: refused');

// Links planted by the sandboxed code, to the user's key and its directory.
run = await sh(ev, `ln -s ${key} key; ln -s ${home}/.ssh sshdir; mkdir sub; ln -s ${home} sub/home; echo planted`);
is(run.stdout, 'planted\n', 'run_code plants symbolic links to the user\'s key, its directory and home');
refused(await call('read_file', { workspace_id: ev, path: 'key' }), /symbolic link/, 'read_file of a link to the key: refused, "is a symbolic link"');
refused(await call('write_file', { workspace_id: ev, path: 'key', content: 'owned' }), /symbolic link/, 'write_file through the link: refused');
untouched('write_file through a link');
refused(await call('write_file', { workspace_id: ev, path: 'key', content: 'owned', append: true }), /symbolic link/, 'write_file append through the link: refused');
untouched('append through a link');
refused(await call('edit_file', { workspace_id: ev, path: 'key', old_string: 'PRIVATE', new_string: 'owned' }), /symbolic link/, 'edit_file through the link: refused');
untouched('edit_file through a link');
refused(await call('read_file', { workspace_id: ev, path: 'sshdir/id_rsa' }), /symbolic link/, 'read_file through a linked directory: refused');
refused(await call('write_file', { workspace_id: ev, path: 'sshdir/authorized_keys', content: 'ssh-rsa owned' }), /symbolic link/, 'write_file through a linked directory: refused');
ok(!existsSync(join(home, '.ssh/authorized_keys')), 'write_file through a linked directory: nothing made in the target');
refused(await call('write_file', { workspace_id: ev, path: 'sub/home/.ssh/new/x', content: 'owned' }), /symbolic link/, 'write_file making parents through a link deeper down: refused');
ok(!existsSync(join(home, '.ssh/new')), 'no directory made through the link');
refused(await call('edit_file', { workspace_id: ev, path: 'sshdir/id_rsa', old_string: 'PRIVATE', new_string: 'owned' }), /symbolic link/, 'edit_file through a linked directory: refused');
untouched('edit_file through a linked directory');
refused(await call('list_files', { workspace_id: ev, path: 'sshdir' }), /symbolic link/, 'list_files of a linked directory: refused');
r = await call('list_files', { workspace_id: ev, recursive: true });
const ent = Object.fromEntries((sc(r).entries || []).map((e) => [e.path, e]));
ok(ent.key?.type === 'symlink' && ent.key.target === key && ent.sshdir?.type === 'symlink' &&
  ent['sub/home']?.type === 'symlink' && !Object.keys(ent).some((p) => /id_rsa/.test(p)),
  'list_files shows the links as symlinks with their targets, and follows none', sc(r).entries);
// A link swapped in where a file was between two calls.
await call('write_file', { workspace_id: ev, path: 'swap.txt', content: 'mine\n' });
await sh(ev, `rm swap.txt; ln -s ${key} swap.txt`);
refused(await call('write_file', { workspace_id: ev, path: 'swap.txt', content: 'owned' }), /symbolic link/, 'write_file to a file swapped for a link: refused');
refused(await call('read_file', { workspace_id: ev, path: 'swap.txt' }), /symbolic link/, 'read_file of a file swapped for a link: refused');
untouched('a swapped link');
r = await call('delete_path', { workspace_id: ev, path: 'key' });
ok(!r.isError && sc(r).type === 'symlink', 'delete_path of the link removes the link', text(r));
ok(!existsSync(join(state, 'workspaces', ev, 'key')), 'the link is gone');
untouched('delete_path of a link');
r = await call('delete_path', { workspace_id: ev, path: 'sshdir' });
ok(!r.isError && existsSync(join(home, '.ssh/id_rsa')), 'delete_path of a linked directory removes the link, not the directory');
refused(await call('delete_path', { workspace_id: ev, path: 'sub/home/.ssh/id_rsa' }), /symbolic link/, 'delete_path through a link deeper down: refused');
untouched('delete_path through a link');

// A fifo: never waited on.
await sh(ev, 'mkfifo ff');
let t0 = Date.now();
r = await call('read_file', { workspace_id: ev, path: 'ff' });
ok(r.isError && /not a regular file/.test(text(r)) && Date.now() - t0 < 5000, `read_file of a fifo: an error at once (${Date.now() - t0} ms)`, text(r));
t0 = Date.now();
r = await call('write_file', { workspace_id: ev, path: 'ff', content: 'x' });
ok(r.isError && /not a regular file/.test(text(r)) && Date.now() - t0 < 5000, `write_file to a fifo: an error at once (${Date.now() - t0} ms)`, text(r));
r = await call('edit_file', { workspace_id: ev, path: 'ff', old_string: 'x', new_string: 'y' });
ok(r.isError && /not a regular file/.test(text(r)), 'edit_file of a fifo: refused', text(r));
r = await call('list_files', { workspace_id: ev });
is((sc(r).entries || []).find((e) => e.path === 'ff')?.type, 'other', 'list_files shows the fifo as other');

// A device node: the jail has no right to make one.
run = await sh(ev, 'mknod null c 1 3 2>&1; echo rc=$?');
if (/rc=0/.test(run.stdout)) {
  r = await call('read_file', { workspace_id: ev, path: 'null' });
  ok(r.isError && /not a regular file/.test(text(r)), 'read_file of a device node: refused', text(r));
} else {
  ok(/rc=[1-9]/.test(run.stdout), `mknod in the jail fails, so no device node can be planted (${run.stdout.trim().replace(/\n/g, ' ')})`);
}

// A hard link to a file of the user's, where the file system allows it.
let linked = false, why = '';
try { linkSync(key, join(state, 'workspaces', ev, 'hl')); linked = true; } catch (e) { why = e.code; }
if (linked) {
  refused(await call('read_file', { workspace_id: ev, path: 'hl' }), /hard links/, 'read_file of a hard link to the key: refused, saying so');
  refused(await call('write_file', { workspace_id: ev, path: 'hl', content: 'owned' }), /hard links/, 'write_file to the hard link: refused');
  untouched('write_file to a hard link');
  refused(await call('write_file', { workspace_id: ev, path: 'hl', content: 'owned', append: true }), /hard links/, 'write_file append to the hard link: refused');
  refused(await call('edit_file', { workspace_id: ev, path: 'hl', old_string: 'PRIVATE', new_string: 'owned' }), /hard links/, 'edit_file of the hard link: refused');
  untouched('edit_file of a hard link');
  r = await call('delete_path', { workspace_id: ev, path: 'hl' });
  ok(!r.isError && !existsSync(join(state, 'workspaces', ev, 'hl')), 'delete_path removes the hard link');
  untouched('delete_path of a hard link');
} else {
  skip('hard link to a host file', `the file system refuses the link (${why})`);
}

// Workspaces.
refused(await call('read_file', { workspace_id: 'nope', path: 'x' }), /no workspace nope \(list_workspaces shows them\)/, 'read_file in a missing workspace: "no workspace"');
refused(await call('list_files', { workspace_id: 'nope' }), /no workspace nope/, 'list_files in a missing workspace: "no workspace"');
refused(await call('edit_file', { workspace_id: 'nope', path: 'x', old_string: 'a', new_string: 'b' }), /no workspace nope/, 'edit_file in a missing workspace: "no workspace"');
refused(await call('delete_workspace', { workspace_id: 'nope' }), /no workspace nope/, 'delete_workspace of a missing workspace: "no workspace"');
refused(await call('read_file', { workspace_id: ev, path: 'missing.txt' }), /no such file/, 'read_file of a missing file: "no such file"');
r = await call('list_workspaces', {});
const wsl = Object.fromEntries((sc(r).workspaces || []).map((w) => [w.workspace_id, w]));
ok(wsl[ws] && wsl[ws].files >= 4 && wsl[ws].bytes > 11 << 20 && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(wsl[ws].modified) && wsl[ev],
  'list_workspaces: both workspaces, with files, bytes and an ISO 8601 time', sc(r));
ok(wsl[ws] && (wsl[ws].created === null || (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(wsl[ws].created) &&
  wsl[ws].created <= wsl[ws].modified && Date.parse(wsl[ws].created) > Date.now() - 3600e3)),
  'list_workspaces: created is the workspace\'s birth, within the test\'s hour (or null)', wsl[ws]);
// A workspace with a job running is kept.
const busy = await call('run_code', { language: 'bash', workspace_id: 'files-busy', code: 'sleep 30', wait_s: 0 });
refused(await call('delete_workspace', { workspace_id: 'files-busy' }), /in use by job/, 'delete_workspace while a job of it is queued or running: refused');
await call('cancel_job', { job_id: sc(busy).job_id });
// The workspace with links to the user's files, deleted: the links go, their targets stay.
await sh(ev, `ln -s ${home} homelink; ln -s ${key} keylink2; mkdir -p d/e; ln -s ${home}/.ssh d/e/l`);
r = await call('delete_workspace', { workspace_id: ev });
ok(!r.isError && sc(r).deleted === true && !existsSync(join(state, 'workspaces', ev)), 'delete_workspace removes the workspace', text(r));
untouched('delete_workspace with links to the key');
ok(existsSync(join(home, '.ssh')) && readdirSync(home).includes('.ssh'), 'the linked directories are still there');
r = await call('delete_path', { workspace_id: ws, path: 'data' });
ok(!r.isError && !existsSync(join(state, 'workspaces', ws, 'data')), 'delete_path removes a directory tree');
refused(await call('delete_path', { workspace_id: ws, path: '.' }), /delete_workspace/, 'delete_path of the root: refused, pointing to delete_workspace');
ok(lstatSync(key).isFile(), 'the key is still a plain file');

// A workspace survives a restart of sr-mcp: a new server on the same state
// directory lists it, reads its files, and runs in it.
await call('write_file', { workspace_id: ws, path: 'kept.txt', content: 'still here\n' });
await client.close();
const again = new Client({ name: 'sr-test-files-again', version: '1' });
await again.connect(new StdioClientTransport({ command: server, args: [], stderr: 'pipe',
  env: serverEnv(state, { HOME: home }) }));
r = await again.callTool({ name: 'list_workspaces', arguments: {} }, undefined, T);
ok((sc(r).workspaces || []).some((w) => w.workspace_id === ws), 'after a restart: list_workspaces still has the workspace', sc(r));
r = await again.callTool({ name: 'read_file', arguments: { workspace_id: ws, path: 'kept.txt' } }, undefined, T);
like(text(r), /still here/, 'after a restart: read_file reads what was written before');
r = await again.callTool({ name: 'run_code', arguments: { language: 'bash', workspace_id: ws, code: 'cat kept.txt' } }, undefined, T);
is(sc(r).stdout, 'still here\n', 'after a restart: run_code in the workspace sees the file');
await again.close();
done();
