// http-expose.mjs - expose_port over sr-mcp-http: alice's python session
// serves http.server's file handler on 8000 (a session call that does not
// return; the handler also says what Cookie it saw and sets one under
// /cookie); expose_port answers a URL on the front's own address,
// /p/alice/ID/, that curl opens with no token; the page comes in an
// origin of its own (CSP sandbox). Refused: a changed ID, bob's tenant
// name with alice's ID, a malformed link (404 each, saying why; the
// control is alice's link served). Bob exposes nothing of alice's session.
// After close_session the link is dead (404).
import { spawnSync } from 'node:child_process';
import { ok, is, like, done, sc, text, until } from './tap.mjs';
import { startGateway, connect } from './http-lib.mjs';

const gw = await startGateway();
const alice = await connect(gw, 'alice');
const bob = await connect(gw, 'bob');
const call = (c, name, a) => c.callTool({ name, arguments: a }, undefined, { timeout: 300000 });
const curl = (url, extra = []) => {
  const p = spawnSync('curl', ['-sS', '--path-as-is', '-D', '-', '-o', '-', '-w', '\n%{http_code}', ...extra, url], { encoding: 'utf8', timeout: 60000 });
  const i = p.stdout.lastIndexOf('\n');
  return { code: Number(p.stdout.slice(i + 1)), body: p.stdout.slice(0, i) };
};

// the server: a session call that runs it until the call is cancelled
let r = await call(alice, 'run_code', { language: 'python', workspace_id: 'web', session: true, wait_s: 0, timeout_s: 240, code: `
import os, subprocess
os.makedirs('/tmp/site', exist_ok=True)
open('/tmp/site/index.html', 'w').write('<p>hello from the session</p>')
open('/tmp/site/srv.py', 'w').write('''
import http.server
class H(http.server.SimpleHTTPRequestHandler):
    def end_headers(self):
        if self.path.startswith('/cookie'):
            self.send_header('Set-Cookie', 'planted=1; Path=/')
            self.send_header('X-Saw-Cookie', self.headers.get('Cookie') or 'none')
        super().end_headers()
http.server.ThreadingHTTPServer(('127.0.0.1', 8000), H).serve_forever()
''')
subprocess.run(['python3', '/tmp/site/srv.py'], cwd='/tmp/site')
` });
const serving = sc(r).job_id;
ok(/^[0-9a-f]{32}$/.test(serving || ''), 'a session call runs an http.server on 8000', text(r));
await until(async () => !(r = await call(alice, 'expose_port', { workspace_id: 'web', language: 'python', port: 8000 })).isError, 60);
const url = sc(r).url || '';
const m = new RegExp(`^http://127\\.0\\.0\\.1:${gw.port}/p/alice/([0-9a-f]{32})/$`).exec(url);
ok(m, 'expose_port answers a URL on the front\'s address, /p/alice/ID/', text(r));
like(text(r), new RegExp(url.replace(/[.]/g, '\\.')), 'the text the model reads holds the whole URL');
let g;
ok(await until(async () => (g = curl(url)).code === 200, 60), 'curl, with no token, gets the page through the front', g);
like(g.body, /hello from the session/, 'the session\'s page');
like(g.body, /content-security-policy: sandbox/i, 'served in an origin of its own (CSP sandbox)');
g = curl(url + 'index.html');
ok(g.code === 200 && /hello from the session/.test(g.body), 'a path beneath the link too', g);
g = curl(url + 'cookie', ['-H', 'Cookie: front=secret']);
ok(g.code === 404 && !/set-cookie/i.test(g.body) && /x-saw-cookie: none/i.test(g.body),
  'cookies are carried neither way (the server saw none; its Set-Cookie is dropped)', g);
g = curl(url.replace(/\/$/, ''));
ok(g.code === 308, 'the link without its last slash is redirected to it', g);

const id = m ? m[1] : '0'.repeat(32);
const other = id.slice(0, -1) + (id.endsWith('0') ? '1' : '0');
g = curl(url.replace(id, other));
ok(g.code === 404 && /no server is published at this link/.test(g.body), 'a changed ID: 404, saying why', g);
g = curl(url.replace('/p/alice/', '/p/bob/'));
ok(g.code === 404 && /no server is published/.test(g.body), 'bob\'s name with alice\'s ID: 404 (the ID is looked up in bob\'s state alone)', g);
g = curl(`http://127.0.0.1:${gw.port}/p/alice/../x/`);
ok(g.code === 404, 'a malformed link: 404', g);
r = await call(bob, 'expose_port', { workspace_id: 'web', language: 'python', port: 8000 });
ok(r.isError && /no live python session/.test(text(r)), 'bob exposes nothing of alice\'s session', text(r));

r = await call(alice, 'close_session', { workspace_id: 'web', language: 'python' });
is(sc(r).closed, true, 'close_session', text(r));
ok(await until(async () => (g = curl(url)).code === 404, 60), 'after it the link is dead (404)', g);

await gw.stop();
done();
process.exit();
