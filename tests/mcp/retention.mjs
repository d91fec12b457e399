// retention.mjs - finished jobs' retention (--job-ttl, --job-space) through
// the official SDK v1 client: finished jobs past the TTL are removed by the
// sweeper (even with --workspace-ttl off), with their code in STATE/code;
// job_status, job_logs and the job's resource then say retention removed
// them; past --job-space the oldest go at start-up; with both off nothing
// goes (the control).
import { readdirSync, readFileSync, realpathSync, existsSync, utimesSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, done, server, stateDir, serverEnv, sc, text, sleep, stdioClient } from './tap.mjs';

const connect = (state, extra) => stdioClient(Client, StdioClientTransport, state, 'sr-test-retention', extra, 120000);
const inCode = (state) => readdirSync(join(state, 'code'));
const inMade = (state) => readdirSync(join(state, 'made'));
// a run's code (STATE/code/NAME.code), and what lists the files it made,
// sr-mcp's own bookkeeping kept under the job's id in STATE/made: the
// jail's list of its changes (ID.changes), or a snapshot of its workspace (ID)
const code = (state) => inCode(state).filter((f) => f.endsWith('.code'));
const snaps = (state) => inMade(state);
const madeOf = (state) => inMade(state).map((f) => f.replace(/\.changes$/, ''));
// the code files and those of STATE/made older than the sweep's grace (a
// run writes them just before it stores its job)
function ageCode(state) {
  const old = new Date(Date.now() - 3600 * 1000);
  for (const f of inCode(state)) utimesSync(join(state, 'code', f), old, old);
  for (const f of inMade(state)) utimesSync(join(state, 'made', f), old, old);
}
const done_ = (state, id) => existsSync(join(state, 'spool/done', id));
async function until(cond, secs) {
  for (let i = 0; i < secs * 10 && !cond(); i++) await sleep(100);
  return cond();
}
async function runJob(call, bytes) {
  const r = await call('run_code', { language: 'bash', code: `head -c ${bytes} /dev/zero; echo end >&2` });
  return sc(r).job_id;
}

// ---- bad values are usage errors (exit 100); 0 and off are accepted -----------
for (const [opt, v] of [['--job-ttl', '7x'], ['--job-ttl', '-1d'], ['--job-space', '12Q'],
  ['--job-space', '1.5']]) {
  const p = spawnSync(server, [opt, v, '--help'], { env: serverEnv(stateDir()), encoding: 'utf8' });
  is(p.status, 100, `${opt} ${v}: usage error`);
}
for (const [opt, v] of [['--job-ttl', 'off'], ['--job-ttl', '0'], ['--job-space', '0'], ['--job-space', 'off']]) {
  const p = spawnSync(server, [opt, v, '--help'], { env: serverEnv(stateDir()), encoding: 'utf8' });
  is(p.status, 0, `${opt} ${v}: accepted`);
}
const bad = spawnSync(server, ['--help'], { env: serverEnv(stateDir(), { SR_MCP_JOB_SPACE: '1X' }), encoding: 'utf8' });
is(bad.status, 100, 'SR_MCP_JOB_SPACE=1X: usage error');

// ---- by age, by the sweeper, with --workspace-ttl off ------------------------
const a = stateDir();
let { client, call } = await connect(a, { SR_MCP_JOB_TTL: '2s', SR_MCP_WORKSPACE_TTL: 'off',
  SR_MCP_JOB_SPACE: 'off' });
let caps = sc(await call('sandbox_info', {})).caps || {};
ok(caps.job_kept_s === 2 && caps.job_space_bytes === null, 'sandbox_info gives the job retention (2 s, no room bound)', caps);
const old = await runJob(call, 1000);
like(old, /^[0-9a-f]{32}$/, 'a finished job');
ok(code(a).length > 0, 'its code is in STATE/code', code(a));
is(madeOf(a).join(), old, 'what lists the files it made is STATE/made/ID or ID.changes', snaps(a));
const rec = JSON.parse(readFileSync(join(a, 'spool/done', old, 'job.jsonl'), 'utf8').split('\n')[0]);
// the jail's list must be named to the runner, by the job's id alone; a
// snapshot is never named
const named = (rec.env || []).filter((e) => e.includes('/made/'));
ok(Array.isArray(rec.env) && rec.env.some((e) => e.startsWith('SR_CODE=')) &&
   !JSON.stringify(rec).includes('SNAPSHOT') &&
   named.every((e) => e === `SR_WORKSPACE_CHANGES=${join(realpathSync(a), 'made', old)}.changes`) &&
   (named.length === 0) === (snaps(a)[0] === old),
   "the job's record (its environment) names only the jail's list, STATE/made/ID.changes; control: it names the code", rec.env);
ageCode(a);
ok(await until(() => !done_(a, old), 15), 'the sweeper removes the job past --job-ttl');
ok(await until(() => code(a).length === 0, 10), 'and its code in STATE/code', code(a));
is(snaps(a).length, 0, 'and the list of the files it made');
let r = await call('job_status', { job_id: old });
ok(r.isError, 'job_status of the removed job is an error');
like(text(r), /removed by retention.*keeps finished jobs for 2s/, 'that says retention removed it, and the terms');
r = await call('job_logs', { job_id: old, stream: 'stdout' });
like(text(r), /removed by retention/, 'job_logs says so too');
let e = null;
try { await client.readResource({ uri: `sr://jobs/${old}/stdout` }); } catch (x) { e = x; }
like(e && e.message, /removed by retention/, 'and the job output resource');
r = await call('job_status', { job_id: 'f'.repeat(16) + '0'.repeat(16) });
like(text(r), /^(?!.*retention).*no job f{16}0{16}/, 'control: an id newer than any removed is just not found');
await client.close();

// ---- by room, at start-up ----------------------------------------------------
const b = stateDir();
({ client, call } = await connect(b, { SR_MCP_JOB_TTL: 'off', SR_MCP_JOB_SPACE: 'off' }));
const jobs = [];
for (let i = 0; i < 3; i++) jobs.push(await runJob(call, 400000));
await client.close();
ok(jobs.every((id) => done_(b, id)), 'three finished jobs of 400 KB with retention off');
ageCode(b);
await sleep(1500);
ok(jobs.every((id) => done_(b, id)) && code(b).length === 3, 'control: with retention off they all stay, and their code');
({ client, call } = await connect(b, { SR_MCP_JOB_TTL: 'off', SR_MCP_JOB_SPACE: '600K' }));
caps = sc(await call('sandbox_info', {})).caps || {};
ok(caps.job_kept_s === null && caps.job_space_bytes === 600 * 1024, 'sandbox_info gives the room bound', caps);
ok(await until(() => !done_(b, jobs[1]), 15), 'at start-up, past --job-space, old jobs are removed');
ok(!done_(b, jobs[0]) && done_(b, jobs[2]), 'the oldest first: the newest stays');
ok(await until(() => code(b).length === 1, 10), 'only the kept job\'s code stays', code(b));
is(snaps(b).length, 1, 'and the list of the files it made');
r = await call('job_status', { job_id: jobs[0] });
like(text(r), /removed by retention.*at most 600K/, 'job_status says retention removed it');
r = await call('job_status', { job_id: jobs[2] });
is(sc(r).status, 'succeeded', 'the kept job reads as before');
await client.close();
done();
