// http-load.mjs - a bounded load on sr-mcp-http: SESSIONS sessions at once
// (SR_HTTP_LOAD_SESSIONS, default 20; half alice's, half bob's), each
// calling run_code over and over for SECONDS (SR_HTTP_LOAD_SECONDS, default
// 15; `make bench` runs 60). No call may fail, every job must be found
// again and have succeeded with its own output, and when the sessions are
// ended, no process of theirs may be left.
import { ok, is, done, sc, text, diag } from './tap.mjs';
import { startGateway, connect, leftAfter } from './http-lib.mjs';

const SESSIONS = Number(process.env.SR_HTTP_LOAD_SESSIONS || 20);
const SECONDS = Number(process.env.SR_HTTP_LOAD_SECONDS || 15);
const gw = await startGateway(['--tenant-sessions', String(SESSIONS), '--max-sessions', String(SESSIONS)]);
const tenantOf = (i) => (i % 2 ? 'bob' : 'alice');
const clients = await Promise.all(Array.from({ length: SESSIONS }, (_, i) => connect(gw, tenantOf(i), `load-${i}`)));
ok(clients.length === SESSIONS, `${SESSIONS} sessions open (alice and bob)`);
const end = Date.now() + SECONDS * 1000;
const errors = [], jobs = [];
await Promise.all(clients.map(async (c, i) => {
  for (let n = 0; Date.now() < end; n++) {
    const mark = `s${i}-n${n}`;
    try {
      const r = await c.callTool({ name: 'run_code', arguments: { language: 'bash', code: `echo ${mark}` } }, undefined, { timeout: 120000 });
      if (r.isError || sc(r).stdout !== `${mark}\n`) errors.push(`${mark}: ${text(r).slice(0, 300)}`);
      jobs.push({ i, mark, job: sc(r).job_id });
    } catch (e) {
      errors.push(`${mark}: ${e}`);
    }
  }
}));
diag(`${jobs.length} run_code calls in ${SECONDS} s over ${SESSIONS} sessions`);
is(errors.length, 0, 'no call failed', ...errors.slice(0, 5));
ok(jobs.length >= SESSIONS, `every session ran code (${jobs.length} runs)`);
// Every job, asked for again by id in its own session: there, succeeded, its output.
const lost = [];
await Promise.all(clients.map(async (c, i) => {
  for (const j of jobs.filter((x) => x.i === i)) {
    const s = sc(await c.callTool({ name: 'job_status', arguments: { job_id: j.job } }));
    if (s.status !== 'succeeded' || s.stdout !== `${j.mark}\n`) lost.push(`${j.mark} ${j.job}: ${s.status}`);
  }
}));
is(lost.length, 0, 'no job lost: each is found by id, succeeded, with its own output', ...lost.slice(0, 5));
const pgids = gw.starts();
await Promise.all(clients.map((c) => c.transport.terminateSession().then(() => c.close())));
is(await leftAfter(pgids), '', 'every process of the ended sessions is gone');
await gw.stop();
done();
