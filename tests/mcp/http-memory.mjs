// http-memory.mjs - what one tenant can make sr-mcp-http hold is bounded,
// and an answered request keeps nothing: large batches with progress
// tokens (the attack that grew the front by MiBs per POST until Node
// aborted), JSON bodies, long and odd ids, deep nesting, many unanswered
// requests (429 with their ids), clients that never read their responses
// (many streams), and requests whose client went away (the session still
// idles out). Each with its control. What the front holds is read from its
// SIGUSR2 line; its resident memory from /proc.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ok, is, like, done, diag, sleep, root, server, stateDir, serverEnv } from './tap.mjs';
import { startGateway, post, session, events, tokens } from './http-lib.mjs';

const MiB = 1 << 20;
const RSS_BOUND = 512 * MiB;          // sr-mcp-http(1), LIMITS
const rq = (id, method, params) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
const until = async (f, ms) => {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (await f()) return true;
  return !!(await f());
};

// (no --tenant-rate: this tenant's requests are to reach the front's memory)
const gw = await startGateway(['--tenant-rate', '0', '--', '--max-result-chars', '500000']);
let maxRss = 0;
const sample = setInterval(() => { maxRss = Math.max(maxRss, gw.rss()); }, 100);

// ---- large batches with progress tokens, read as they come ----------------------
const sid = await session(gw, 'alice');
let nid = 1, through = 0, short = 0;
const batch = (n = 64) => Array.from({ length: n }, () => rq(nid++, 'tools/list', { _meta: { progressToken: `p${nid}` } }));
for (let i = 0; i < 5; i++) await post(gw, 'alice', batch(), { sid });
const rss0 = gw.rss();
for (let i = 0; i < 60; i++) {
  const r = await post(gw, 'alice', batch(), { sid });
  through += r.text.length;
  if (r.status !== 200 || events(r.text).filter((m) => m.result && m.result.tools).length !== 64) short++;
}
const grew = gw.rss() - rss0;
is(short, 0, '60 batches of 64 tools/list with progress tokens: each answered whole');
ok(through > 4 * RSS_BOUND / 16, `control: ${Math.round(through / MiB)} MiB of answers went through the front (the old one kept most of it)`);
ok(grew < 48 * MiB, `... and its memory did not grow with them (${Math.round(grew / MiB)} MiB from the 5th to the 65th batch; the old front: ~3 MiB a batch)`);
let st = await gw.stats();
ok(st && st.inflight === 0 && st.clientIds === 0 && st.progress === 0 && st.streams === 0 && st.held === 0,
  'every request answered: nothing of them is kept (no id, progress token, stream or byte)', st);
for (let i = 0; i < 10; i++) {
  const r = await post(gw, 'alice', batch(), { sid, accept: 'application/json' });
  if (r.status !== 200 || !Array.isArray(r.json) || r.json.length !== 64) short++;
}
st = await gw.stats();
ok(short === 0 && st.streams === 0 && st.held === 0, 'the same as JSON bodies: answered whole, nothing kept', st);

// ---- batch size, ids, nesting -----------------------------------------------------------
let r = await post(gw, 'alice', batch(65), { sid });
is(r.status, 413, 'a batch of 65 messages: 413');
like(r.text, /at once \(64\)/, '... saying the limit (a batch of 64 is the control above)');
const long = 'i'.repeat(254);
r = await post(gw, 'alice', rq(long, 'ping'), { sid, accept: 'application/json' });
is(r.json && r.json.id, long, 'control: a 256-character id (as JSON) is answered under it');
r = await post(gw, 'alice', rq(long + 'i', 'ping'), { sid, accept: 'application/json' });
is(r.status, 400, 'an id one character longer: 400');
r = await post(gw, 'alice', rq(1, 'ping', { _meta: { progressToken: 'x'.repeat(300) } }), { sid });
is(r.status, 400, 'a 300-character progress token: 400');
r = await post(gw, 'alice', rq('x'.repeat(3 * MiB), 'ping'), { sid });
is(r.status, 400, 'a 3 MiB id: 400 (nothing kept of it)');
for (const [what, body] of [['true', '{"jsonrpc":"2.0","id":true,"method":"ping"}'],
  ['an object', '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}'],
  ['2^53+1 (no JSON reader keeps it exact)', '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}'],
  ['1e300', '{"jsonrpc":"2.0","id":1e300,"method":"ping"}']]) {
  r = await post(gw, 'alice', body, { sid });
  is(r.status, 400, `an id of ${what}: 400`);
}
r = await post(gw, 'alice', '{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":"\\ud800"}}', { sid });
is(r.status, 400, 'a lone surrogate in a string (sr-mcp reads no such line): 400');
const nest = (n) => JSON.parse('['.repeat(n) + ']'.repeat(n));
r = await post(gw, 'alice', rq(6, 'ping', { x: nest(70) }), { sid });
is(r.status, 400, 'arrays nested 72 deep: 400');
r = await post(gw, 'alice', rq(7, 'ping', { x: nest(40) }), { sid, accept: 'application/json' });
is(r.json && r.json.id, 7, 'control: nested 42 deep, answered');
r = await post(gw, 'alice', '{"jsonrpc":"2.0","id":"a\\u0000b","method":"ping"}', { sid, accept: 'application/json' });
is(r.json && r.json.id, 'a\u0000b', 'an id with a NUL in it is answered under the client\'s own id');
r = await post(gw, 'alice', rq(1.5, 'ping'), { sid, accept: 'application/json' });
is(r.json && r.json.id, 1.5, '... and so is the id 1.5');
// control: sr-mcp itself answers such ids under another id, which the old front never matched
const direct = spawnSync(server, [], { env: serverEnv(stateDir()), encoding: 'utf8', timeout: 30000,
  input: '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}\n' +
    '{"jsonrpc":"2.0","id":"a\\u0000b","method":"ping"}\n{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}\n' +
    '{"jsonrpc":"2.0","id":8,"method":"ping","params":{"x":"\\ud800"}}\n' });
const ids = direct.stdout.split('\n').filter(Boolean).slice(1).map((l) => JSON.stringify(JSON.parse(l).id));
is(ids.join(' '), '"a" 9007199254740990 null', 'control: sr-mcp over stdio answers those ids as "a", 9007199254740990 and null');
st = await gw.stats();
is(st.inflight, 0, 'no request of all these is left unanswered');

// ---- clients that never read: many unread streams ----------------------------------------
// python3 (tests/mcp/http-unread.py): sockets with a 4 KiB receive buffer
// (each answer a read_file of 380 kB: 24 MiB a stream, more than the
// kernel's loopback buffers take)
r = await post(gw, 'alice', rq('w', 'tools/call', { name: 'write_file', arguments: { workspace_id: 'big', path: 'big.txt', content: ('x'.repeat(1900) + '\n').repeat(200) } }), { sid, accept: 'application/json' });
ok(r.json && r.json.result && !r.json.result.isError, 'a file of 200 lines of 1900 bytes written (read_file gives it whole: big answers)', r.text.slice(0, 300));
const unread = (n, accept) => new Promise((res) => {
  const body = JSON.stringify(Array.from({ length: 64 }, (_, i) => rq(`u-@-${accept.length}-${i}`, 'tools/call',
    { name: 'read_file', arguments: { workspace_id: 'big', path: 'big.txt' }, _meta: { progressToken: `u-@-${i}` } })));
  const p = spawn('python3', [join(root, 'tests/mcp/http-unread.py'), String(gw.port), String(n), '300', '3'], { stdio: ['pipe', 'pipe', 'inherit'] });
  p.stdout.once('data', () => res(p));
  p.stdin.end(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${gw.port}\r\nAuthorization: Bearer ${tokens.alice}\r\n` +
    `Content-Type: application/json\r\nAccept: ${accept}\r\nMcp-Session-Id: ${sid}\r\nContent-Length: LENGTH\r\n\r\n${body}`);
  process.on('exit', () => p.kill());
});
const cutBefore = (gw.log().match(/cut off/g) || []).length;
const readers = [await unread(4, 'text/event-stream'), await unread(2, 'application/json')];
const cut = await until(() => (gw.log().match(/cut off/g) || []).length > cutBefore, 60000);
ok(cut, 'four unread event streams of one session (24 MiB of answers each): the front cuts them off', gw.log().slice(-2000));
await until(async () => (await gw.stats()).inflight === 0, 60000);
st = await gw.stats();
ok(st.held < 16 * MiB, `... what it holds for them stays bounded (${Math.round(st.held / MiB)} MiB: unread output at most 8 MiB, events for Last-Event-ID at most 2 MiB)`, st);
r = await post(gw, 'alice', batch(), { sid });
is(events(r.text).filter((m) => m.result).length, 64, 'control: a batch of 64 whose client reads is answered whole, in the same session');
for (const p of readers) p.kill();
await until(async () => (await gw.stats()).held <= 2 * MiB, 20000);
st = await gw.stats();
ok(st.held <= 2 * MiB, 'the unread clients gone, what is left of theirs is the events kept for Last-Event-ID (at most 2 MiB)', st);
clearInterval(sample);
maxRss = Math.max(maxRss, gw.rss());
ok(maxRss < RSS_BOUND, `the front's resident memory stayed under ${RSS_BOUND / MiB} MiB (at most ${Math.round(maxRss / MiB)} MiB)`);
await gw.stop();

// ---- unanswered requests: 429 past the bounds; a client gone does not hold its session --------
const gb = await startGateway(['--idle-timeout', '3s', '--', '-j', '4'], { SR_MCP_HTTP_LIMITS: 'SESSION_INFLIGHT=4,TENANT_INFLIGHT=6' });
const sleeper = (id, secs) => rq(id, 'tools/call', { name: 'run_code', arguments: { language: 'bash', code: `sleep ${secs}` } });
const s1 = await session(gb, 'alice'), s2 = await session(gb, 'alice');
const pending = [1, 2, 3, 4].map((i) => post(gb, 'alice', sleeper(`s1-${i}`, 8), { sid: s1 }));
await until(async () => (await gb.stats()).inflight === 4, 20000);
r = await post(gb, 'alice', sleeper('s1-5', 1), { sid: s1, accept: 'application/json' });
is(r.status, 429, 'a 5th unanswered request of a session (bound lowered to 4): 429');
ok(r.json && r.json.id === 's1-5' && r.json.error && /4 unanswered/.test(r.json.error.message), '... a JSON-RPC error carrying its id, saying why', r.text);
ok(Number(r.headers.get('retry-after')) > 0, '... with Retry-After');
r = await post(gb, 'alice', [sleeper('b1', 1), sleeper('b2', 1)], { sid: s1 });
ok(r.status === 429 && Array.isArray(r.json) && r.json.map((m) => m.id).join() === 'b1,b2', 'a refused batch: an error for each of its requests, by id', r.text);
const p2 = [1, 2].map((i) => post(gb, 'alice', sleeper(`s2-${i}`, 8), { sid: s2 }));
await until(async () => (await gb.stats()).inflight === 6, 20000);
r = await post(gb, 'alice', sleeper('s2-3', 1), { sid: s2, accept: 'application/json' });
ok(r.status === 429 && /tenant alice has 6/.test(r.text), 'the tenant\'s 7th (bound lowered to 6), in another of its sessions: 429', r.text);
const sb = await session(gb, 'bob');
r = await post(gb, 'bob', rq(1, 'tools/list'), { sid: sb, accept: 'application/json' });
ok(r.status === 200 && r.json.result, 'control: another tenant is served meanwhile');
for (const i of [1, 2, 3, 4])
  await post(gb, 'alice', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: `s1-${i}` } }, { sid: s1 });
st = await gb.stats();
is(st.inflight, 2, 'cancelled requests are forgotten at once (left: the other session\'s 2)');
r = await post(gb, 'alice', rq('after', 'ping'), { sid: s1, accept: 'application/json' });
is(r.json && r.json.id, 'after', '... and the session takes requests again');
await Promise.all([...pending, ...p2]);

// --tenant-rate (default 500 messages a second, bursts of 1000): past it 429
const s5 = await session(gb, 'alice'), sb2 = await session(gb, 'bob');
const notes = Array.from({ length: 64 }, () => ({ jsonrpc: '2.0', method: 'notifications/sr-test' }));
const codes = await Promise.all(Array.from({ length: 40 }, () => post(gb, 'alice', notes, { sid: s5 })));
const limited = codes.find((x) => x.status === 429 && /--tenant-rate/.test(x.text));
ok(limited && codes.filter((x) => x.status === 202).length >= 15, `40 batches of 64 notifications at once: the first are taken, then 429 (--tenant-rate) (${codes.filter((x) => x.status === 429).length} of 40)`, limited ? limited.text : codes.map((x) => x.status).join());
ok(limited && Number(limited.headers.get('retry-after')) >= 1, '... with Retry-After');
r = await post(gb, 'bob', rq(2, 'ping'), { sid: sb2, accept: 'application/json' });
is(r.json && r.json.id, 2, 'control: the other tenant is served meanwhile');

// a client that went away: its unanswered request does not keep the session past --idle-timeout
const s3 = await session(gb, 'alice');
const ac = new AbortController();
fetch(gb.url, { method: 'POST', signal: ac.signal, body: JSON.stringify(sleeper('gone', 15)),
  headers: { Authorization: `Bearer ${tokens.alice}`, 'Content-Type': 'application/json', Accept: 'text/event-stream', 'Mcp-Session-Id': s3 } })
  .catch(() => {});
await until(async () => (await gb.stats()).inflight >= 1, 20000);
ac.abort();
const gone = await until(async () => (await gb.stats()).sessions === 0, 60000);
r = await post(gb, 'alice', rq('x', 'ping'), { sid: s3 });
ok(gone && r.status === 404, 'a session whose unanswered request nobody waits for idles out (then 404)', r.status);
const s4 = await session(gb, 'alice');
r = await post(gb, 'alice', sleeper('waited', 6), { sid: s4 });
const ans = events(r.text).find((m) => m.id === 'waited');
ok(ans && ans.result && !ans.result.isError, 'control: a client that waits 6 s for its answer keeps its session past the 3 s idle timeout', r.text.slice(0, 500));
diag(`front: at most ${Math.round(maxRss / MiB)} MiB resident`);
await gb.stop();
done();
