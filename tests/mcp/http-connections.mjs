// http-connections.mjs - connections cannot lock tenants out of
// sr-mcp-http: a thousand idle connections without a token from one
// address (127.0.0.2) get past --address-connections a 503 that says why,
// while a tenant on another address is served; idle connections,
// slowloris headers, a body that trickles, an idle keep-alive connection
// and a half-closed one are all closed by the front. Control: with only an
// overall bound (--max-connections, as before), the same flood locks the
// tenant out.
import net from 'node:net';
import { ok, is, like, done, diag, sleep } from './tap.mjs';
import { startGateway, post, session } from './http-lib.mjs';

const until = async (f, ms) => {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (await f()) return true;
  return !!(await f());
};

// n sockets from address `from`, each with what it received and whether it closed
function open(gw, from, n, onConnect = () => {}) {
  return Promise.all(Array.from({ length: n }, () => new Promise((res) => {
    const c = { got: '', closed: false };
    c.s = net.connect({ port: gw.port, host: '127.0.0.1', localAddress: from }, () => { onConnect(c); res(c); });
    c.s.setEncoding('utf8');
    c.s.on('data', (d) => { c.got += d; });
    c.s.on('close', () => { c.closed = true; });
    c.s.on('error', () => { c.closed = true; res(c); });
  })));
}
const refused = (cs) => cs.filter((c) => /^HTTP\/1\.1 503 /.test(c.got));

const gw = await startGateway(['--address-connections', '50', '--max-connections', '400', '--header-timeout', '2s']);
const flood = await open(gw, '127.0.0.2', 1000);
await until(() => refused(flood).length >= 950, 20000);
const r503 = refused(flood);
is(r503.length, 950, '1000 idle connections from one address without a token: 950 get a 503 (--address-connections 50)');
like(r503[0] && r503[0].got, /127\.0\.0\.2 has 50 connections open.*--address-connections/, '... whose body says why', r503[0] && r503[0].got);
const sid = await session(gw, 'alice');
let r = await post(gw, 'alice', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { sid, accept: 'application/json' });
ok(r.status === 200 && r.json.result.tools, 'meanwhile a tenant on another address opens a session and is served');
const idle = flood.filter((c) => !refused(flood).includes(c));
ok(await until(() => idle.every((c) => c.closed), 30000), 'the 50 idle connections are closed by the front (--header-timeout 2s)',
  `${idle.filter((c) => !c.closed).length} still open`);
const again = await open(gw, '127.0.0.2', 1, (c) => c.s.write(`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${gw.port}\r\n\r\n`));
await until(() => again[0].got.includes('\r\n\r\n'), 10000);
like(again[0].got, /^HTTP\/1\.1 401 /, 'then that address is served again (401: no token)');
again[0].s.destroy();

// slowloris: a header line every 500 ms, never the end of them
const slow = await open(gw, '127.0.0.3', 20, (c) => {
  c.s.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${gw.port}\r\n`);
  c.t = setInterval(() => { if (!c.closed) c.s.write(`X-Slow-${Math.random().toString(36).slice(2)}: 1\r\n`); }, 500);
});
ok(await until(() => slow.every((c) => c.closed), 30000), '20 slowloris connections (a header line every 500 ms) are closed',
  `${slow.filter((c) => !c.closed).length} still open`);
like(slow[0].got, /^HTTP\/1\.1 408 /, '... with 408 Request Timeout');
for (const c of slow) clearInterval(c.t);

// a body that trickles in
const trickle = await open(gw, '127.0.0.3', 5, (c) => {
  c.s.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${gw.port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`);
  c.t = setInterval(() => { if (!c.closed) c.s.write(' '); }, 300);
});
ok(await until(() => trickle.every((c) => c.closed), 40000), 'a body sent a byte every 300 ms: closed (3 x --header-timeout for the whole request)');
for (const c of trickle) clearInterval(c.t);

// an idle keep-alive connection, after a request
const ka = await open(gw, '127.0.0.3', 3, (c) => c.s.write(`GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${gw.port}\r\n\r\n`));
await until(() => ka.every((c) => c.got.includes('\r\n\r\n')), 10000);
ok(ka.every((c) => /^HTTP\/1\.1 401 /.test(c.got)), 'keep-alive: a request answered (401)');
ok(await until(() => ka.every((c) => c.closed), 30000), '... then the idle connection is closed by the front');

// half-closed: part of a request, then the client's FIN
const half = await open(gw, '127.0.0.3', 3, (c) => c.s.end(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${gw.port}\r\n`));
ok(await until(() => half.every((c) => c.closed), 30000), 'half-closed connections (part of the headers, then FIN) are closed');
for (const c of flood) c.s.destroy();
st(await gw.stats());
function st(s) { diag(`front after: ${JSON.stringify(s)}`); }
await gw.stop();

// control: one overall bound only (the old shape): the flood locks the tenant out
const gc = await startGateway(['--address-connections', '100000', '--max-connections', '200', '--header-timeout', '10s']);
const flood2 = await open(gc, '127.0.0.2', 300);
await until(() => refused(flood2).length >= 100, 20000);
let locked;
try {
  r = await post(gc, 'alice', { jsonrpc: '2.0', id: 0, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, { accept: 'application/json' });
  locked = r.status === 503 && /--max-connections/.test(r.text);
} catch (e) {
  locked = true;
}
ok(locked, 'control: without a bound per address, 200 idle connections from one address lock a tenant out (503)', r && r.text);
for (const c of flood2) c.s.destroy();
await until(async () => (await post(gc, 'alice', { jsonrpc: '2.0', id: 0, method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, { accept: 'application/json' })).status === 200, 10000);
r = await post(gc, 'alice', { jsonrpc: '2.0', id: 0, method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, { accept: 'application/json' });
is(r.status, 200, '... and served once the flood is gone');
await gc.stop();
done();
