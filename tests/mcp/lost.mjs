// lost.mjs - what a model is told of output the spool did not keep
// (tests/55-queue-lost-mcp.t made the jobs): job_status, job_logs and
// list_jobs say what was lost and why, through the official SDK v1 client
// (which checks each structuredContent against its outputSchema).
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, done, server, stateDir, serverEnv, sc, text } from './tap.mjs';

const T = process.argv[2];
const ids = (tag) => Object.fromEntries(readFileSync(join(T, `${tag}.ids`), 'utf8').trim()
  .split('\n').map((l) => l.split(' ')));
const full = ids('full'), roomy = ids('roomy');
const state = stateDir();
const client = new Client({ name: 'sr-test-lost', version: '1' });
await client.connect(new StdioClientTransport({ command: server, args: [], stderr: 'pipe',
  env: serverEnv(state) }));
const call = (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 120000 });
const done_ = (id, f = '') => join(state, 'spool/done', id, f);

// A run first: sr-mcp makes its spool, and a run that kept all says nothing lost.
const hi = await call('run_code', { language: 'bash', code: 'echo hi' });
is(sc(hi).status, 'succeeded', 'control: a run through sr-mcp');
ok(sc(hi).stdout_lost_bytes === 0 && sc(hi).lost === undefined && !/not kept/.test(text(hi)),
  'control: it lost nothing and says nothing of the kind', sc(hi));
// The jobs, as their worker left them, into sr-mcp's spool.
for (const tag of ['full', 'roomy']) {
  const cp = spawnSync('cp', ['-a', `${join(T, tag)}/.`, join(state, 'spool/done/')]);
  ok(cp.status === 0, `the ${tag} jobs are in sr-mcp's spool`, String(cp.stderr));
}
let kept = 0;
try { kept = statSync(done_(full.out, 'stdout')).size; } catch { /* none stored */ }
const lost = 100000 - kept;
ok(kept > 0 && kept < 100000, `stdout was partly stored (${kept} bytes)`);

// ---- job_status --------------------------------------------------------------
let r = await call('job_status', { job_id: full.out });
let s = sc(r);
is(s.status, 'succeeded', 'stdout lost: status still says how the program ended');
is(s.stdout_lost_bytes, lost, 'stdout_lost_bytes: the bytes not kept');
like(s.lost, new RegExp(`^${lost} bytes of stdout not stored \\(No space left on device\\)$`), 'lost: what and why');
is(s.stdout_bytes, 100000, 'stdout_bytes: what the program wrote');
ok(s.stdout_dropped_bytes <= kept, `stdout_dropped_bytes counts only what job_logs reads (${s.stdout_dropped_bytes} <= ${kept})`);
like(text(r), /not kept: \d+ bytes of stdout not stored \(No space left on device\)/, 'the text block says it');
like(s.hint, /Part of the output was not kept.*cannot be read.*full disk, tell the user/, 'the hint says what it means and what to do');

r = await call('job_status', { job_id: full.err });
s = sc(r);
is(s.stderr_lost_bytes, 100000, 'stderr lost: stderr_lost_bytes');
is(s.stderr, '[... 100000 bytes of stderr not stored (No space left on device); nothing can read them, job_logs neither ...]\n',
  'the stream itself ends in what was not kept, never "job_logs reads them"');
ok(!/job_logs (with offset|reads them)/.test(text(r)), 'nothing sends the model to job_logs for bytes that are gone', text(r));

r = await call('job_status', { job_id: full.none });
s = sc(r);
like(s.lost, /^sr-limit's report not stored \(No space left on device\)$/, 'the report lost: lost says so');
like(s.hint, /report of the run was not kept.*status comes from its exit alone/, '... and the hint what it means');
is(s.stdout_lost_bytes + s.stderr_lost_bytes, 0, '... and no output bytes are counted lost');

for (const [name, id] of Object.entries(roomy)) {
  const c = sc(await call('job_status', { job_id: id }));
  ok(c.lost === undefined && c.stdout_lost_bytes === 0 && c.stderr_lost_bytes === 0 && !/not kept/.test(c.hint || ''),
    `control (${name}): the same job on a disk with room lost nothing`, c);
}

// ---- job_logs -----------------------------------------------------------------
r = await call('job_logs', { job_id: full.out, offset: kept });
s = sc(r);
ok(s.eof === true && s.text === '', 'job_logs at the end of what was kept: eof, no text', s);
is(s.lost_bytes, lost, 'job_logs: lost_bytes');
like(text(r), /not stored \(No space left on device\): nothing can read those bytes, this tool neither/,
  'job_logs: its text says nothing can read the rest');
r = await call('job_logs', { job_id: full.err, stream: 'stderr' });
is(sc(r).lost_bytes, 100000, 'job_logs of stderr: lost_bytes');
r = await call('job_logs', { job_id: roomy.out, offset: 99990 });
ok(sc(r).lost === undefined && sc(r).text === 'o'.repeat(10), 'control: job_logs of a job that kept all', sc(r));

// ---- stored, then removed (as gc removes a job a view reads) ------------------------
rmSync(done_(roomy.err, 'stderr'));
r = await call('job_status', { job_id: roomy.err });
like(sc(r).lost, /the 100000 stored bytes of stderr are gone \(its file was removed since/, 'a stream removed since: job_status says so');
is(sc(r).stderr_lost_bytes, 100000, '... and counts it');
r = await call('job_logs', { job_id: roomy.err, stream: 'stderr' });
is(sc(r).lost_bytes, 100000, '... and job_logs too');

// ---- list_jobs ---------------------------------------------------------------------
const list = sc(await call('list_jobs', {})).jobs;
const entry = (id) => list.find((j) => j.job_id === id) || {};
like(entry(full.out).lost, /bytes of stdout not stored \(No space left on device\)/, 'list_jobs: lost on a job that lost output');
like(entry(full.none).lost, /sr-limit's report not stored/, 'list_jobs: and on one that lost its report');
is(entry(roomy.out).lost, undefined, 'control: list_jobs, none on a job that kept all');

await client.close();
done();
