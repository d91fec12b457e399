// expose.mjs - a python session serves port 8000 (and 8001, not
// exposed); expose_port gives a URL on the host's 127.0.0.1 that reaches
// 8000 alone; the other port is reached from inside (the control) and not
// from the host; another tenant exposes nothing of it; after close_session
// the URL is dead.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, done, stateDir, sc, text, until, stdioClient } from './tap.mjs';
import net from 'node:net';

const state = stateDir();
const a = await stdioClient(Client, StdioClientTransport, state, 'sr-test-tenant-a');
const b = await stdioClient(Client, StdioClientTransport, state, 'sr-test-tenant-b');
const py = (c, code) => c.call('run_code', { language: 'python', workspace_id: 'w1', session: true, code });
// bounded: a fetch that hangs is a failure that says so, not a test that hangs
const get = async (url) => { try { const r = await fetch(url, { signal: AbortSignal.timeout(30000) }); return `${r.status} ${await r.text()}`; } catch (e) { return `failed: ${e.cause?.code || e.message}`; } };
const tcp = (port) => new Promise((res) => { const s = net.connect(port, '127.0.0.1'); s.on('connect', () => { s.destroy(); res(true); }); s.on('error', () => res(false)); s.setTimeout(30000, () => { s.destroy(); res(false); }); });

let r = await a.call('sandbox_info', {});
is(sc(r).expose_port, 8000, 'sandbox_info names the port a session publishes', text(r));
r = await a.call('expose_port', { workspace_id: 'w1', language: 'python', port: 8000 });
ok(r.isError && /no live python session/.test(text(r)), 'no session yet: nothing to expose', text(r));

// nothing of a call may run past it in a session (session_call.c): the
// servers are threads of a call that serves until close_session ends it
// (600 s only a safety net), so a slow machine's waits below never
// outlast the servers. The call runs without waiting (wait_s 0): what it
// got from 8001 inside (the control) it writes to /workspace/ctl8001.txt.
r = await a.call('run_code', { language: 'python', workspace_id: 'w1', session: true, wait_s: 0, timeout_s: 660, code: `
import functools, http.server, os, threading, time, urllib.request
for d, f in (('a', 'page eight thousand'), ('b', 'page eight thousand one')):
    os.makedirs('/tmp/' + d, exist_ok=True)
    open('/tmp/%s/p.txt' % d, 'w').write(f)
srv = []
for p, d in ((8000, 'a'), (8001, 'b')):
    h = functools.partial(http.server.SimpleHTTPRequestHandler, directory='/tmp/' + d)
    srv.append(http.server.ThreadingHTTPServer(('127.0.0.1', p), h))
    threading.Thread(target=srv[-1].serve_forever, daemon=True).start()
got = urllib.request.urlopen('http://127.0.0.1:8001/p.txt').read().decode()
open('/workspace/ctl8001.tmp', 'w').write(got + '\\n')
os.rename('/workspace/ctl8001.tmp', '/workspace/ctl8001.txt')
time.sleep(600)
print('served to the bound')
` });
const serving = sc(r).job_id;
ok(/^[0-9a-f]{32}$/.test(serving || ''), 'a session call serves 8000 and 8001 on its loopback', text(r));
r = await a.call('expose_port', { workspace_id: 'w1', language: 'python', port: 8001 });
ok(r.isError && /port 8000/.test(text(r)), 'expose_port refuses another port than 8000', text(r));
// the call's session may still be starting: expose once it is live
await until(async () => !(r = await a.call('expose_port', { workspace_id: 'w1', language: 'python', port: 8000 })).isError, 60);
const url = sc(r).url || '';
like(url, /^http:\/\/127\.0\.0\.1:\d+\/$/, 'expose_port gives a URL on the host', text(r));
ok(await until(async () => (await get(url + 'p.txt')) === '200 page eight thousand', 60), 'the host gets the page of port 8000 there', await get(url + 'p.txt'));
is(await get(url + 'p.txt'), '200 page eight thousand', 'and again (a connection each)');
r = await a.call('expose_port', { workspace_id: 'w1', language: 'python', port: 8000 });
is(sc(r).url, url, 'a second call gives the same URL', text(r));
// (something else of the host may listen on those ports: the sandbox's page must not come)
ok(!/page eight/.test(await get('http://127.0.0.1:8001/p.txt')), "the host's 127.0.0.1:8001 does not reach the sandbox's (not exposed: no way in)");
ok(!/page eight/.test(await get('http://127.0.0.1:8000/p.txt')), "nor its 127.0.0.1:8000: only the URL leads in");

r = await b.call('expose_port', { workspace_id: 'w1', language: 'python', port: 8000 });
ok(r.isError && /no live python session/.test(text(r)), "another tenant exposes nothing of A's session", text(r));

// the control, from the file the call wrote (its stdout comes only at its end)
const ctl = async () => text(await a.call('read_file', { workspace_id: 'w1', path: 'ctl8001.txt' }));
ok(await until(async () => /^ *1\tpage eight thousand one$/m.test(await ctl()), 60), 'control: 8001 answered inside the sandbox', await ctl());
is(await get(url + 'p.txt'), '200 page eight thousand', 'the call still serves 8000 before close_session (the control of what follows)');
r = await a.call('close_session', { workspace_id: 'w1', language: 'python' });
is(sc(r).closed, true, 'close_session', text(r));
ok(await until(async () => (await get(url + 'p.txt')).startsWith('failed'), 60), 'after it the URL is dead', await get(url + 'p.txt'));
ok(await until(async () => !(await tcp(Number(new URL(url).port))), 30), 'its port is closed');
r = await a.call('job_status', { job_id: serving, wait_s: 150 });
ok(sc(r).status && sc(r).status !== 'running' && !/served to the bound/.test(sc(r).stdout || ''), 'close_session ended the serving call (not its bound)', text(r));

// a new session in its place: the old URL stays dead (its forwarder ended
// with the session it served)
r = await py(a, '1');
is(sc(r).status, 'succeeded', 'a new session of w1', text(r));
is((await get(url + 'p.txt')).startsWith('failed'), true, 'the old URL does not lead to it');

await a.client.close();
await b.client.close();
done();
