// http-lockout.mjs - a client that never ends its sessions (no DELETE, as
// the Inspector CLI, the conformance suite and most scripts) is not locked
// out: at --tenant-sessions, the tenant's session idle longest (no request
// in flight) is ended to make room, never another tenant's. Only when each
// of its sessions has a request in flight is a new one refused (429), and
// its Retry-After is true: a session can be had once that time is up. At
// --max-sessions (503), Retry-After is when another tenant's idle session
// ends (--idle-timeout).
import { ok, is, like, done, sleep } from './tap.mjs';
import { startGateway, connect, post, session, leftAfter } from './http-lib.mjs';
import { execFileSync } from 'node:child_process';

const list = { jsonrpc: '2.0', id: 7, method: 'tools/list' };
const alive = async (gw, tenant, sid) => (await post(gw, tenant, list, { sid })).status;
const init = (gw, tenant) => post(gw, tenant, { jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }, { accept: 'application/json' });

// ---- no lock-out: 10 sessions of the official client, 3 at most at once ----
let gw = await startGateway(['--tenant-sessions', '3', '--max-sessions', '8']);
const bobSid = await session(gw, 'bob');
const first = gw.starts().length;   // the sr-mcp of alice's sessions start here (after bob's, and the one tried at start)
const clients = [], refused = [];
for (let i = 0; i < 10; i++) {
  try {
    const c = await connect(gw, 'alice', `never-deletes-${i}`);
    await c.listTools();
    clients.push(c);
  } catch (e) {
    refused.push(`session ${i}: ${e.message}`);
  }
}
is(refused.join('; '), '', 'a client that never ends its sessions opens 10, at --tenant-sessions 3: none refused');
let listed = 0;
for (const c of clients.slice(-3)) listed += (await c.listTools()).tools.length > 0;
is(listed, 3, '... its 3 newest sessions serve');
let gone = 0;
for (const c of clients.slice(0, 7)) gone += await c.listTools().then(() => 0, () => 1);
is(gone, 7, '... the 7 before were ended to make room (their next request: an error)');
is(await alive(gw, 'bob', bobSid), 200, "... and bob's session, idle all along, is still his (another tenant's is never ended)");
const starts = gw.starts();
is(starts.length - first, 10, "... alice's 10 sessions, an sr-mcp each");
is(await leftAfter(starts.slice(first, first + 7)), '', "... every process of the 7 ended sessions' sr-mcp is gone");

// oldest idle first: the one used longest ago goes, not the one opened first
const [a, b, c] = [await session(gw, 'alice'), await session(gw, 'alice'), await session(gw, 'alice')];
is(await alive(gw, 'alice', a), 200, 'alice has 3 raw sessions a, b, c; a used again last');
const d = await session(gw, 'alice');
ok(d, 'a 4th session opens');
is(await alive(gw, 'alice', b), 404, '... b, idle longest, was ended to make room (404 now)');
is(await alive(gw, 'alice', a), 200, '... a, opened first but used since, still serves');
is(await alive(gw, 'alice', c), 200, '... and c');
await gw.stop();

// ---- all busy: 429, with a Retry-After that is true ------------------------
// sr-mcp answers each call within --wait-max (here 6 s): a session whose
// calls are answered is free to end then.
gw = await startGateway(['--tenant-sessions', '2', '--', '--wait', '4s', '--wait-max', '6s']);
const busy = [await connect(gw, 'alice', 'busy-1'), await connect(gw, 'alice', 'busy-2')];
const sent = Date.now();
// Each run sleeps for a time of its own (12.PID0 s, 12.PID1 s): the test
// sees both running (pgrep on the host sees the jail's processes) before it
// asks for a third session, whatever the machine's load.
const tag = (i) => `12.${process.pid}${i}`;
const calls = busy.map((cl, i) => cl.callTool({ name: 'run_code', arguments: { language: 'bash', code: `sleep ${tag(i)}`, wait_s: 6 } }));
const running = () => [0, 1].filter((i) => {
  try { execFileSync('pgrep', ['-f', `^sleep ${tag(i).replace('.', '\\.')}$`]); return true; } catch { return false; }
}).length;
for (const until = Date.now() + 120000; running() < 2 && Date.now() < until;) await sleep(100);
is(running(), 2, 'both calls are running in the sandbox');
let r = await init(gw, 'alice');
const refusedAt = Date.now();
is(r.status, 429, "both of alice's sessions have a call in flight: a third is refused, 429");
like(r.text, /each has a request in flight/, '... saying why');
const after = Number(r.headers.get('retry-after'));
ok(after >= 1 && after <= 6 + 5, `... Retry-After ${after} s: when the calls in flight are answered at the latest (--wait-max 6 s, + 5 s), not 30`);
is(r.json && r.json.id, 1, '... the refusal answers the request by its id');
const answers = await Promise.all(calls);
ok(answers.every((x) => x.structuredContent && x.structuredContent.status === 'running'),
  `... the calls came back by then, still running (${Math.round((Date.now() - sent) / 1000)} s after they were sent)`);
await sleep(Math.max(0, refusedAt + after * 1000 - Date.now()));
r = await init(gw, 'alice');
is(r.status, 200, `after Retry-After, a session is had: ${r.status}`);
let ended = 0;
for (const cl of busy) ended += await cl.listTools().then(() => 0, () => 1);
is(ended, 1, '... one of the two (idle now) was ended for it');
await gw.stop();

// ---- the server's bound: 503 until another tenant's session idles out -------
gw = await startGateway(['--tenant-sessions', '3', '--max-sessions', '3', '--idle-timeout', '8s']);
const mine = [await session(gw, 'alice'), await session(gw, 'alice'), await session(gw, 'alice')];
r = await init(gw, 'bob');
is(r.status, 503, "the server is full of alice's idle sessions: bob's first is refused, 503 (none of them is bob's to end)");
const wait = Number(r.headers.get('retry-after'));
ok(wait >= 1 && wait <= 8, `... Retry-After ${wait} s: when alice's oldest idles out (--idle-timeout 8s)`);
r = await init(gw, 'alice');
is(r.status, 200, "control: alice's own 4th is had at once (her idle session idle longest makes room)");
is(await alive(gw, 'alice', mine[0]), 404, '... it was her first');
await sleep(wait * 1000 + 2000);
r = await init(gw, 'bob');
is(r.status, 200, 'bob, after Retry-After (+2 s, the sweep runs every second): a session is had');
await gw.stop();
done();
