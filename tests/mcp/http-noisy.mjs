// http-noisy.mjs - one tenant hammers sr-mcp-http while another works:
// alice (from 127.0.0.2) posts batches of 64 requests with progress
// tokens from several sessions at once, and keeps hundreds of idle
// connections without a token open from 127.0.0.3, renewing them as the
// front closes them, for SECONDS (SR_HTTP_NOISY_SECONDS, default 8; make
// bench runs 30). Meanwhile bob (127.0.0.1) calls run_code and tools/list
// over the official SDK client. Asserted (make check): every call of
// bob's succeeds, the front is alive after, its resident memory stays
// under its documented bound. Reported (make bench): bob's medians with
// and without alice, as ratios.
import http from 'node:http';
import net from 'node:net';
import { ok, is, done, diag, sleep } from './tap.mjs';
import { startGateway, connect, session, tokens } from './http-lib.mjs';

const SECONDS = Number(process.env.SR_HTTP_NOISY_SECONDS || 8);
const MiB = 1 << 20;
const RSS_BOUND = 512 * MiB;          // sr-mcp-http(1), LIMITS
const gw = await startGateway();
let maxRss = 0;
const sample = setInterval(() => { maxRss = Math.max(maxRss, gw.rss()); }, 100);

// bob: run_code `true` and tools/list, one after the other, timed
const bob = await connect(gw, 'bob', 'bob-noisy');
const errors = [];
async function bobRound(until) {
  const t = { run: [], list: [] };
  while (Date.now() < until || t.run.length < 5) {
    try {
      let t0 = performance.now();
      const r = await bob.callTool({ name: 'run_code', arguments: { language: 'bash', code: 'true', workspace_id: 'bob' } }, undefined, { timeout: 120000 });
      t.run.push(performance.now() - t0);
      if (r.isError || r.structuredContent.status !== 'succeeded') errors.push(JSON.stringify(r).slice(0, 300));
      t0 = performance.now();
      const l = await bob.listTools(undefined, { timeout: 120000 });
      t.list.push(performance.now() - t0);
      if (!l.tools.some((x) => x.name === 'run_code')) errors.push('tools/list without run_code');
    } catch (e) {
      errors.push(String(e));
    }
  }
  return t;
}
const quiet = await bobRound(Date.now() + SECONDS * 1000);

// alice: batches from 127.0.0.2 (one session per loop), idle connections from 127.0.0.3
const agent = new http.Agent({ keepAlive: true, maxSockets: 8, localAddress: '127.0.0.2' });
const alicePost = (sid, body) => new Promise((res) => {
  const q = http.request({ host: '127.0.0.1', port: gw.port, path: '/mcp', method: 'POST', agent,
    headers: { Authorization: `Bearer ${tokens.alice}`, 'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sid } }, (a) => {
    let n = 0;
    a.on('data', (d) => { n += d.length; });
    a.on('end', () => res({ status: a.statusCode, bytes: n }));
    a.on('error', () => res({ status: 0, bytes: n }));
  });
  q.on('error', () => res({ status: 0, bytes: 0 }));
  q.end(body);
});
const stats = { batches: 0, refused: 0, failed: 0, bytes: 0, idle: 0, idle503: 0 };
let stop = false;
const aliceSessions = await Promise.all([0, 1, 2, 3].map(() => session(gw, 'alice')));
let nid = 0;
const hammer = aliceSessions.map(async (sid) => {
  while (!stop) {
    const batch = Array.from({ length: 64 }, () => ({ jsonrpc: '2.0', id: ++nid, method: 'tools/list', params: { _meta: { progressToken: `t${nid}` } } }));
    const r = await alicePost(sid, JSON.stringify(batch));
    stats.bytes += r.bytes;
    if (r.status === 200) stats.batches++;
    else if (r.status === 429 || r.status === 503) { stats.refused++; await sleep(200); }
    else stats.failed++;
  }
});
const idle = new Set();
function idleOne() {
  if (stop) return;
  const s = net.connect({ port: gw.port, host: '127.0.0.1', localAddress: '127.0.0.3' });
  stats.idle++;
  idle.add(s);
  s.on('data', (d) => { if (/^HTTP\/1\.1 503 /.test(String(d))) stats.idle503++; });
  s.on('error', () => {});
  s.on('close', () => { idle.delete(s); setTimeout(idleOne, 50); });   // renewed
}
for (let i = 0; i < 300; i++) idleOne();
await sleep(500);
const loaded = await bobRound(Date.now() + SECONDS * 1000);
stop = true;
await Promise.all(hammer);
for (const s of idle) s.destroy();
clearInterval(sample);
maxRss = Math.max(maxRss, gw.rss());

is(errors.length, 0, `every call of bob's succeeded (${quiet.run.length + loaded.run.length} run_code, as many tools/list)`, ...errors.slice(0, 5));
ok(stats.batches > 0, `control: alice's hammering was real: ${stats.batches} batches of 64 answered (${Math.round(stats.bytes / MiB)} MiB), ${stats.refused} refused (429/503), ${stats.failed} failed`);
ok(stats.idle503 > 0, `control: her idle connections were real: ${stats.idle} opened, ${stats.idle503} refused past --address-connections`);
const st = await gw.stats();
ok(st && st.sessions >= 5, 'the front is alive after, with every session', st);
ok(maxRss < RSS_BOUND, `the front's resident memory stayed under ${RSS_BOUND / MiB} MiB (at most ${Math.round(maxRss / MiB)} MiB)`);
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
diag('| bob\'s call | median, alone | median, alice hammering | × alone | calls |');
diag('| --- | --- | --- | --- | --- |');
for (const [k, name] of [['run', 'tools/call run_code bash `true`'], ['list', 'tools/list']])
  diag(`| ${name} | ${med(quiet[k]).toFixed(1)} ms | ${med(loaded[k]).toFixed(1)} ms | ${(med(loaded[k]) / med(quiet[k])).toFixed(2)} | ${quiet[k].length} + ${loaded[k].length} |`);
diag('');
diag(`alice for ${SECONDS} s: ${stats.batches} batches of 64 tools/list with progress tokens answered (${Math.round(stats.bytes / MiB)} MiB), ` +
  `${stats.refused} refused (429/503); ${stats.idle} idle connections opened, ${stats.idle503} refused (503). Front: at most ${Math.round(maxRss / MiB)} MiB resident (bound ${RSS_BOUND / MiB} MiB).`);
await bob.close();
await gw.stop();
done();
