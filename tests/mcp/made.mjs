// made.mjs - the files a run made, in a workspace of 20,000 files, through
// the official SDK v1 client (which checks each structuredContent against
// its outputSchema): the list comes from what the jail's init applied of
// the run's overlay (sr-jail --quota-changes), right for files created,
// changed, removed, renamed and made in new directories; the run's code
// cannot forge it (the control: the same records written into the list by
// the host do change it); and the run path walks no part of the workspace
// (every getdents64 of sr-mcp, its worker and the chains watched with
// strace -y; the control: a session's call, which still walks, is seen).
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, skip, done, server, stateDir, serverEnv, sc, text, sleep } from './tap.mjs';

const T = { timeout: 300000 };
const state = stateDir();
const trace = join(stateDir(), 'trace');
const strace = spawnSync('strace', ['-V']).status === 0;
// Under strace (only getdents64 stops, by its seccomp filter), when here.
const command = strace ? 'strace' : server;
const args = strace ? ['-f', '-qq', '-y', '--seccomp-bpf', '-e', 'trace=getdents64', '-o', trace, server] : [];
const client = new Client({ name: 'sr-test-made', version: '1' });
await client.connect(new StdioClientTransport({ command, args, stderr: 'pipe', env: serverEnv(state) }));
const call = (name, a) => client.callTool({ name, arguments: a }, undefined, T);
const run = (code, extra = {}) => call('run_code', { language: 'bash', workspace_id: 'big', code, ...extra });
const paths = (r) => (sc(r).files || []).map((f) => `${f.path}:${f.change}:${f.size}`);
const links = (r) => (r.content || []).filter((c) => c.type === 'resource_link').map((l) => l.name);

// ---- a workspace of 20,000 files --------------------------------------------
let r = await run('for d in $(seq 0 199); do mkdir d$d; (cd d$d && touch $(seq -f f%g 0 99)); done; ' +
  'echo keep > keep.txt; echo gone > gone.txt; echo old > ren.txt; mkdir -p olddir/sub again; ' +
  'echo a > olddir/a; echo b > olddir/sub/b; echo c > olddir/sub/c; echo 1 > again/one; echo 2 > again/two');
is(sc(r).status, 'succeeded', 'a run makes a workspace of 20,000 files');
is((sc(r).files || []).length + sc(r).files_not_listed, 20008, 'its list counts every file it made (20,008)');
is(sc(r).files_cut, false, 'and is whole');

// ---- created, changed, removed, renamed, new directories ---------------------
r = await run('echo more >> keep.txt && rm gone.txt && mv ren.txt renamed.txt && cat d5/f5 > /dev/null && ' +
  'rm -r olddir && mkdir -p new/deep && printf 12345 > new/deep/f && echo n > top.txt && printf x > d7/f7 && ' +
  'ln -s keep.txt lnk && mkfifo ff && rm -r again && mkdir again && echo 1 > again/one');
is(JSON.stringify(paths(r)), JSON.stringify(['keep.txt:modified:10', 'renamed.txt:created:4', 'top.txt:created:2',
  'again/one:created:2', 'd7/f7:modified:1', 'new/deep/f:created:5']),
'created, changed (appended, rewritten), renamed and in new directories, shallow first; nothing read, no link, no fifo');
is(sc(r).files_deleted, 7, 'deleted: a file, the old name of a renamed one, a tree of 3, a directory of 2 made again');
is(sc(r).files_not_listed, 0, 'nothing more');
is(sc(r).files_cut, false, 'and whole');
is(JSON.stringify(links(r)), JSON.stringify(['keep.txt', 'renamed.txt', 'top.txt', 'again/one', 'd7/f7', 'new/deep/f']),
  'a resource_link for each');
like(text(r), /files this run created or changed in \/workspace ---\nkeep.txt \(10 bytes, modified\)\n/, 'and the text says so');
like(text(r), /\(7 files deleted\)/, 'with the count deleted');
const second = sc(r).job_id;
r = await run('rm -r d3 && mkdir node_modules && touch node_modules/x && touch d4/.keep');
is(JSON.stringify(paths(r)), JSON.stringify(['d4/.keep:created:0']), 'node_modules left out');
is(sc(r).files_deleted, 100, 'a directory of 100 files removed: 100 deleted');
r = await call('job_status', { job_id: second });
is(sc(r).files_deleted, 7, 'job_status of an earlier run: the list it had');

// ---- the run's code cannot forge the list ------------------------------------
const forged = 'printf "c 1 /workspace/forged\\0. 0 /workspace\\0"';
r = await run(`for f in /proc/self/fd/* /proc/1/fd/*; do case $f in */[012]) ;; *) ${forged} >> "$f" ;; esac; done 2>/dev/null; ` +
  `for f in $(find / -xdev -name '*.changes' 2>/dev/null); do ${forged} >> "$f"; done; ` +
  `${forged} > x.changes; ${forged} > .sr-jail-changes; grep -c SR_WORKSPACE_CHANGES /proc/self/environ; ` +
  'echo sr-jail quota changes 1 > sr-jail-changes');
is(JSON.stringify(paths(r).map((p) => p.split(':')[0])), JSON.stringify(['.sr-jail-changes', 'sr-jail-changes', 'x.changes']),
  'code that writes records to every descriptor, the init\'s, every *.changes it finds and files of its own: ' +
  'only the files it made are listed');
is(sc(r).stdout, '0\n', 'the list\'s file is not named to the code');
// control: the same records, written into the list by the host, are read
const made = join(state, 'made');
r = await run('echo real > real.txt', { wait_s: 0 });
const id = sc(r).job_id;
for (let i = 0; i < 600 && !existsSync(join(state, 'spool', 'done', id)); i++) await sleep(100);
const lists = readdirSync(made).filter((n) => n.endsWith('.changes') &&
  readFileSync(join(made, n), 'latin1').startsWith('sr-jail quota changes 1\n'));
is(lists.join(), `${id}.changes`, 'control: the ended run\'s list is in the state directory (STATE/made/ID.changes), not yet read');
if (lists.length === 1) appendFileSync(join(made, lists[0]), 'c 1 /workspace/forged\0');
r = await call('job_status', { job_id: id });
ok(paths(r).includes('forged:created:1') && paths(r).includes('real.txt:created:5'),
  'control: a record written into that file is listed: the file is what decides', paths(r));

// ---- no walk of the workspace on the run path --------------------------------
r = await run('true');
is(sc(r).status, 'succeeded', 'bash true in the workspace of 20,000 files');
if (!strace) {
  skip('the run path reads no directory of the workspace', 'strace is not installed');
  skip('control: a session call, which walks, is seen', 'strace is not installed');
} else {
  r = await call('run_code', { language: 'bash', workspace_id: 'ctl',
    code: 'for d in $(seq 0 9); do mkdir d$d; (cd d$d && touch $(seq -f f%g 0 9)); done' });
  r = await call('run_code', { language: 'python', workspace_id: 'ctl', session: true, code: '1 + 1' });
  ok(sc(r).status === 'succeeded', 'control: a session call in another workspace', sc(r));
  await client.close();
  await sleep(500);
  const lines = readFileSync(trace, 'utf8').split('\n').filter((l) => /getdents64\(/.test(l));
  const big = lines.filter((l) => /\/workspaces\/big\/d[0-9]+>/.test(l));
  is(big.length, 0, 'no directory of the 20,000 files was read, in 6 runs (getdents64 of sr-mcp, its worker, the chains)');
  ok(lines.filter((l) => /\/workspaces\/ctl\/d[0-9]+>/.test(l)).length >= 10,
    'control: the session call\'s walk of its workspace is seen', lines.length);
}
if (!strace) await client.close();
done();
