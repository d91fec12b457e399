// fair.mjs - sr-mcp's fair sharing through the official SDK client
// (sr-queue --cpu-budget, work-conserving; sr-mcp(1), Fair sharing):
//  - a lone client drives a burst far past its budget: no call waits for
//    it (each result's queued_reason, as the worker recorded it);
//  - two clients of one name (every Python SDK client is called "mcp"), one
//    slot: the one over its budget is held back, the other is not, and the
//    held run's result says how long and why; control: the same two under
//    one --tenant are one client, and nobody is held for a budget;
//  - sandbox_info states the policy;
//  - a worker started with -j 1 is replaced when sr-mcp starts with -j 2:
//    the next runs run two at once, the old worker's running job goes on
//    (control: under -j 1 the second run waits).
// Assertions are on what the results and the worker record, not on time.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ok, is, like, done, server, stateDir, serverEnv, sc, text, sleep, until, stdioClient } from './tap.mjs';

const connect = (state, name, extra = {}) => stdioClient(Client, StdioClientTransport, state, name, extra, 240000);
const read = (p) => { try { return readFileSync(p, 'utf8'); } catch { return ''; } };
// A run that holds its slot until it is cancelled.
const blocker = (ws) => ({ language: 'bash', workspace_id: ws, timeout_s: 600, wait_s: 0,
  code: 'exec sleep 600' });
const release = (c, id) => c.call('cancel_job', { job_id: id });
const burn = (ms) => ({ language: 'python', workspace_id: 'burn',
  code: `import time\nt = time.process_time()\nwhile time.process_time() - t < ${ms / 1000}: pass\nprint("burnt")` });
const status = async (c, id) => sc(await c.call('job_status', { job_id: id })).status;
const finish = async (c, id) => sc(await c.call('job_status', { job_id: id, wait_s: 120 }));

// ---- a lone client never waits for its own budget --------------------------------
{
  const state = stateDir();
  // 200ms of CPU an hour: spent by the first call, and not back while the
  // test runs; a budget that made a lone client wait would hold it an hour
  const a = await connect(state, 'mcp', { SR_MCP_CPU_BUDGET: '200ms/1h', SR_MCP_JOBS: '1' });
  const rs = [];
  for (let i = 0; i < 4; i++) rs.push(await a.call('run_code', burn(250)));
  ok(rs.every((r) => sc(r).status === 'succeeded'), 'a lone client: four calls of 250 ms of CPU each, past a budget of 200 ms, all ran',
    rs.map((r) => sc(r).status));
  const cpu = rs.reduce((s, r) => s + (sc(r).cpu_ms || 0), 0);
  ok(cpu >= 800, `their CPU was measured and charged (${cpu} ms, four times the budget)`);
  ok(rs.every((r) => sc(r).queued_reason !== 'budget'), 'none waited for the budget (queued_reason)',
    rs.map((r) => sc(r).queued_reason));
  ok(rs.every((r) => typeof sc(r).queued_ms === 'number'), 'each result says how long it was queued (queued_ms)',
    rs.map((r) => sc(r).queued_ms));
  // a burst at once: one slot, so they wait for it, but not for the budget
  const burst = await Promise.all([0, 1, 2].map(() => a.call('run_code', burn(100))));
  ok(burst.every((r) => sc(r).status === 'succeeded'), 'a burst of three at once, all past the budget, all ran');
  ok(burst.every((r) => sc(r).queued_reason !== 'budget'), 'none of them waited for the budget',
    burst.map((r) => sc(r).queued_reason));
  ok(burst.some((r) => sc(r).queued_reason === 'slots' && /for a free slot/.test(text(r))),
    'one that waited for the slot says so in its result', burst.map((r) => text(r).split('\n').slice(0, 2).join(' / ')));
  const info = sc(await a.call('sandbox_info', {}));
  const s = info.scheduling || {};
  is(s.cpu_budget, '200ms/1h', 'sandbox_info states the budget');
  is(s.slots, 1, 'and the slots');
  like(s.policy, /never waits for its own budget/, 'and the policy in words');
  like(s.client, /^mcp\.\d+$/, 'a client is its name and its connection');
  await a.client.close();
}

// ---- two clients of one name: the heavy one is held back, the light one not ------
async function twoClients(extra) {
  const state = stateDir();
  const env = { SR_MCP_CPU_BUDGET: '200ms/1h', SR_MCP_JOBS: '1', ...extra };
  const heavy = await connect(state, 'mcp', env);
  const light = await connect(state, 'mcp', env);
  const spent = await heavy.call('run_code', burn(300));   // past its budget
  const block = sc(await heavy.call('run_code', blocker('hb'))).job_id;
  ok(await until(async () => (await status(heavy, block)) === 'running', 120), 'the slot is taken');
  const h = [];
  for (let i = 0; i < 2; i++)
    h.push(sc(await heavy.call('run_code', { language: 'bash', workspace_id: 'hw', code: 'echo heavy', wait_s: 0 })).job_id);
  const l = sc(await light.call('run_code', { language: 'bash', workspace_id: 'lw', code: 'echo light', wait_s: 0 })).job_id;
  await release(heavy, block);
  const lr = await finish(light, l);
  const hr = [];
  for (const id of h) hr.push(await finish(heavy, id));
  const res = { spent: sc(spent), lr, hr, ltext: '', htext: '' };
  res.htext = text(await heavy.call('job_status', { job_id: h[1] }));
  await heavy.client.close();
  await light.client.close();
  return res;
}
{
  const r = await twoClients({});
  ok(r.spent.cpu_ms >= 250, `the heavy client spent its budget (${r.spent.cpu_ms} ms)`);
  is(r.lr.stdout, 'light\n', "the light client's run ran");
  ok(r.lr.queued_reason !== 'budget', 'and was not held back: it waited only for the busy slot',
    JSON.stringify({ reason: r.lr.queued_reason, note: r.lr.queued_note }));
  ok(r.hr.every((x) => x.stdout === 'heavy\n'), "the heavy client's runs ran too (held, not refused)");
  ok(r.hr.every((x) => x.queued_reason === 'budget'), 'they were held back for its budget while the light one waited',
    r.hr.map((x) => x.queued_reason));
  like(r.hr[1].queued_note, /waited .* in the queue: other clients' runs went first, as this client had used more than its CPU budget \(200ms of CPU time per 1h\)/,
    "the held run's result says how long and why");
  like(r.htext, /This run waited [0-9.]+ m?s in the queue: other clients' runs went first/, 'in its text too');
}
{
  // control: under one --tenant the two connections are one client:
  // nobody is held for a budget, the runs go oldest first
  const r = await twoClients({ SR_MCP_TENANT: 'pool' });
  ok([r.lr, ...r.hr].every((x) => x.queued_reason !== 'budget'),
    'control: one tenant for both connections: no run is held for a budget (one client, one budget)',
    [r.lr, ...r.hr].map((x) => x.queued_reason));
  // what sr-mcp-http passes (--tenant, the token's name): that is the client
  const t = await connect(stateDir(), 'mcp', { SR_MCP_TENANT: 'pool' });
  const s = sc(await t.call('sandbox_info', {})).scheduling || {};
  is(s.client, 'pool', 'with --tenant (sr-mcp-http: the token\'s tenant), the client is the tenant');
  like(s.policy, /every connection of it/, 'and the policy says so');
  await t.client.close();
}

// ---- a changed -j takes effect at the next start -----------------------------------
{
  const state = stateDir();
  const lockLine = () => read(join(state, 'worker.lock')).split('\n')[1] || '';
  const one = await connect(state, 'sr-opts', { SR_MCP_JOBS: '1' });
  const a = sc(await one.call('run_code', blocker('o1'))).job_id;
  const b = sc(await one.call('run_code', blocker('o2'))).job_id;
  ok(await until(async () => (await status(one, a)) === 'running', 120), '-j 1: the first run runs');
  is(await status(one, b), 'queued', 'control: under -j 1 the second waits');
  like(lockLine(), / -j 1 /, 'the worker records its options (-j 1)', lockLine());
  const lockPid = () => read(join(state, 'worker.lock')).split('\n')[0];
  const pid1 = lockPid();
  const same = await connect(state, 'sr-opts', { SR_MCP_JOBS: '1' });
  const e = sc(await same.call('run_code', { language: 'bash', workspace_id: 'o5', code: 'true', wait_s: 0 })).job_id;
  await same.call('cancel_job', { job_id: e });
  is(lockPid(), pid1, 'a second sr-mcp with the same options keeps the worker');
  is(await status(one, a), 'running', 'and its running job');
  await same.client.close();
  await release(one, b);         // b never starts; a keeps running
  await one.client.close();
  const two = await connect(state, 'sr-opts', { SR_MCP_JOBS: '2' });
  const c = sc(await two.call('run_code', blocker('o3'))).job_id;
  const d = sc(await two.call('run_code', blocker('o4'))).job_id;
  ok(await until(async () => (await status(two, c)) === 'running' && (await status(two, d)) === 'running', 120),
    'restarted with -j 2: the next two runs run at once', `${await status(two, c)} ${await status(two, d)}`);
  is(await status(two, a), 'running', "the old worker's running job goes on meanwhile");
  like(lockLine(), / -j 2 /, 'the new worker records -j 2', lockLine());
  for (const id of [a, c, d]) await release(two, id);
  const ends = [];
  for (const id of [a, c, d]) ends.push(await finish(two, id));
  ok(ends.every((x) => x.status === 'cancelled'), 'each ended as asked (cancelled, none lost), the old worker\'s included',
    ends.map((x) => x.status));
  const log = read(join(state, 'worker.log'));
  ok(!/fatal/.test(log), 'the workers said nothing alarming', log);
  await two.client.close();
}
done();
