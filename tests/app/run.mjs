// run.mjs - sr-mcp's MCP App (ui://sr/run.html), by tests/97-mcp-app.t.
// First the protocol, over raw JSON-RPC lines (no browser): the view and
// the tools' links are offered to a client that declares
// io.modelcontextprotocol/ui, and to no other. Then the view itself in
// headless Chromium (Debian's chromium, driven by the pinned
// playwright-core), inside sr-mcp/app/host.html, the small host whose
// bridge forwards tools/call to a real sr-mcp: a Python job that prints
// for 5 s and plots shows its output growing, its image and its final
// status; Cancel stops a second job; output, file names and file contents
// that try to be HTML or terminal escapes show as text.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { ok, is, like, done, diag, server, stateDir, serverEnv, sleep } from '../mcp/tap.mjs';
import { startHost, mcpStdio, VIEW_URI, VIEW_MIME } from '../../sr-mcp/app/host.mjs';
import { playwrightOrSkip, withBrowser, view, text } from './lib.mjs';

const UI = 'io.modelcontextprotocol/ui';
const env = serverEnv(stateDir());
const linked = (t) => t._meta && t._meta.ui && t._meta.ui.resourceUri === VIEW_URI &&
  t._meta['ui/resourceUri'] === VIEW_URI;
const anyLink = (tools) => tools.filter((t) => t._meta && (t._meta.ui || t._meta['ui/resourceUri'])).map((t) => t.name);

// ---- the protocol: offered only to a client that declares the extension --------
async function legacy(caps) {
  const m = mcpStdio(server, env);
  const init = await m.request('initialize', { protocolVersion: '2025-11-25', capabilities: caps,
    clientInfo: { name: 'sr-test-app', version: '1' } });
  m.notify('notifications/initialized', {});
  const tools = (await m.request('tools/list', {})).result.tools;
  const list = (await m.request('resources/list', {})).result.resources;
  const read = await m.request('resources/read', { uri: VIEW_URI });
  m.child.stdin.end();
  await m.gone;
  return { caps: init.result.capabilities, tools, list, read };
}
const want = { extensions: { [UI]: { mimeTypes: [VIEW_MIME] } } };
let r = await legacy(want);
ok(linked(r.tools.find((t) => t.name === 'run_code')), 'declared: run_code links the view (_meta.ui.resourceUri and ui/resourceUri)');
ok(linked(r.tools.find((t) => t.name === 'job_status')), 'declared: job_status links the view');
is(anyLink(r.tools).join(','), 'run_code,job_status', 'declared: no other tool links it');
ok(r.caps.extensions && r.caps.extensions[UI], 'declared: initialize says the server serves the extension', r.caps);
const entry = r.list.find((x) => x.uri === VIEW_URI);
ok(entry && entry.mimeType === VIEW_MIME, 'declared: resources/list gives the view with its MIME type', r.list);
const item = r.read.result && r.read.result.contents[0];
ok(item && item.mimeType === VIEW_MIME && /^<!DOCTYPE html>/i.test(item.text), 'declared: resources/read gives the HTML', r.read);
ok(item && item._meta && item._meta.ui && JSON.stringify(item._meta.ui.csp) === '{}',
  'declared: its _meta.ui.csp asks for no domain (the host\'s restrictive default)', item && item._meta);
const html = (item && item.text) || '';
ok(Buffer.byteLength(html) < 100000, `the view is one file under 100 kB (${Buffer.byteLength(html)} bytes)`);
ok(!/<(script|link|img|iframe)\b[^>]*\b(src|href)\s*=/i.test(html) && !/@import|url\(\s*['"]?(https?:)?\/\//i.test(html),
  'it loads nothing from anywhere (no src, href, @import or url())');
ok(!/\.innerHTML\s*=|outerHTML\s*=|insertAdjacentHTML|document\.write|\beval\(|new Function/.test(html),
  'its script never parses data as HTML or code (no innerHTML, insertAdjacentHTML, document.write, eval)');

for (const [caps, what] of [[{}, 'no extension'],
  [{ extensions: { [UI]: { mimeTypes: ['text/html'] } } }, 'the extension without text/html;profile=mcp-app']]) {
  r = await legacy(caps);
  is(anyLink(r.tools).join(','), '', `${what}: no tool links a view (control)`);
  ok(!r.list.some((x) => /^ui:/.test(x.uri)), `${what}: resources/list has no ui:// resource`);
  ok(r.read.error && /declare the MCP Apps extension/.test(r.read.error.message),
    `${what}: resources/read of the view is not found, saying why`, r.read);
  ok(!(r.caps.extensions && r.caps.extensions[UI]), `${what}: initialize does not offer the extension`);
}
r = await legacy({ experimental: { [UI]: { mimeTypes: [VIEW_MIME] } } });
is(anyLink(r.tools).join(','), 'run_code,job_status', 'declared under experimental (older hosts): offered too');

{ // 2026-07-28: each request declares its capabilities in _meta
  const m = mcpStdio(server, env);
  const meta = (caps) => ({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': caps,
    'io.modelcontextprotocol/clientInfo': { name: 'sr-test-app', version: '1' } });
  const d = await m.request('server/discover', { _meta: meta(want) });
  ok(d.result.capabilities.extensions[UI], '2026-07-28: server/discover names the extension');
  let t = (await m.request('tools/list', { _meta: meta(want) })).result.tools;
  is(anyLink(t).join(','), 'run_code,job_status', '2026-07-28: a request declaring it gets the links');
  t = (await m.request('tools/list', { _meta: meta({}) })).result.tools;
  is(anyLink(t).join(','), '', '2026-07-28: a request without it gets none (control)');
  let rd = await m.request('resources/read', { uri: VIEW_URI, _meta: meta({}) });
  is(rd.error && rd.error.code, -32602, '2026-07-28: resources/read of the view without it: not found (-32602)');
  rd = await m.request('resources/read', { uri: VIEW_URI, _meta: meta(want) });
  is(rd.result && rd.result.contents[0].mimeType, VIEW_MIME, '2026-07-28: with it: the view');
  rd = await m.request('resources/read', { uri: 'ui://sr/other.html', _meta: meta(want) });
  like(rd.error && rd.error.message, /only ui:\/\/ resource sr-mcp has is ui:\/\/sr\/run\.html/,
    'another ui:// uri: not found, naming the one there is');
  m.child.stdin.end();
  await m.gone;
}

async function browser(pw) {
  const csp = [];
  await withBrowser(pw, { command: server, env }, async ({ page }) => {
    page.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) csp.push(m.text()); });
    await live(page);
    await hostile(page);
    await errors(page);
    await cancel(page);
  });
  ok(!csp.some((t) => !/onerror|pwned|inline event handler/i.test(t)),
    'the view needs nothing its host\'s restrictive CSP forbids', csp);
}
const statusOf = (f) => text(f, '#status');
async function until(f, pred, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    const s = await statusOf(f);
    if (pred(s)) return s;
    if (Date.now() > end) { diag(`${what}: still ${s} after ${ms} ms`); return s; }
    await sleep(200);
  }
}

const PY = `import sys, time
import matplotlib.pyplot as plt
for i in range(10):
    print("tick", i, flush=True)
    time.sleep(0.5)
print("done plotting", file=sys.stderr)
plt.plot([0, 1, 4, 9, 16, 25])
plt.title("sr: squares")
`;

async function live(page) {
  await page.evaluate((code) => { window.runCode({ language: 'python', code, wait_s: 1 }); }, PY);
  const f = await view(page);
  const seen = [];
  const end = Date.now() + 30000;
  while (Date.now() < end) {
    const s = await statusOf(f), n = (await text(f, '#stdout')).length;
    seen.push([s, n]);
    if (/succeeded|failed|timed out|oom|killed|cancelled|lost|error/.test(s)) break;
    await sleep(300);
  }
  const running = seen.filter(([s, n]) => s === 'running' && n > 0);
  const grew = running.length >= 2 && running[running.length - 1][1] > running[0][1];
  ok(grew, 'stdout grows in the view while the job runs', seen);
  is(seen[seen.length - 1][0], 'succeeded', 'the final status is succeeded');
  like(await text(f, '#stdout'), /tick 0\n[^]*tick 9\n/, 'all of stdout is there, in order, once');
  is((await text(f, '#stdout')).match(/tick 3\n/g)?.length, 1, 'no output is shown twice');
  like(await text(f, '#stderr'), /done plotting/, 'stderr is shown');
  like(await text(f, '#code'), /plt\.title/, 'the code is shown');
  is(await text(f, '#lang'), 'python', 'with its language');
  like(await text(f, '#facts'), /ended\s*exit \(exit code 0\)[^]*wall[^]*cpu[^]*peak memory[^]*limits\s*timeout \d+ s · memory \d+ MiB/,
    'the facts: how it ended, times, memory, limits', await text(f, '#facts'));
  await f.waitForFunction(() => { const i = document.querySelector('#images img'); return i && i.complete && i.naturalWidth > 0; },
    null, { timeout: 10000 }).catch(() => {});
  const img = await f.evaluate(() => { const i = document.querySelector('#images img'); return i ? [i.naturalWidth, i.naturalHeight] : null; });
  ok(img && img[0] > 100 && img[1] > 100, 'the plot is shown as an image', img);
  await f.waitForSelector('#files button', { timeout: 10000 }).catch(() => {});
  like(await text(f, '#files'), /outputs\/figure-1\.png/, 'the workspace\'s files are listed');
  const polls = await page.evaluate(() => window.bridgeLog.filter((e) => e.dir === 'in' && e.name === 'job_status').map((e) => e.t));
  const gaps = polls.slice(1).map((t, i) => t - polls[i]);
  ok(polls.length >= 2 && gaps.every((g) => g >= 950), `job_status is polled, at most once a second (${polls.length} polls)`, gaps);
  const shot = process.env.SR_APP_SCREENSHOT || join(process.env.TMPDIR || tmpdir(), 'sr-app.png');
  await (await page.$('#panel')).screenshot({ path: shot });
  ok(existsSync(shot), `a screenshot is saved (${shot})`);
  await f.click('#files button >> text=figure-1.png');
  await f.waitForSelector('#viewer-img img', { timeout: 10000 }).catch(() => {});
  ok(await f.$('#viewer-img img'), 'a file of the list opens: an image as an image');
  // theme and width from the host
  await page.check('#dark');
  await f.waitForFunction(() => document.documentElement.dataset.theme === 'dark', null, { timeout: 5000 }).catch(() => {});
  const bg = await f.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const lum = (bg.match(/\d+/g) || [255, 255, 255]).slice(0, 3).reduce((a, b) => a + Number(b), 0);
  ok(lum < 200, 'the host\'s dark theme darkens the view', bg);
  await page.uncheck('#dark');
  await f.waitForFunction(() => document.documentElement.dataset.theme === 'light', null, { timeout: 5000 }).catch(() => {});
  const fit = await f.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1);
  ok(fit, 'the view fits a narrow panel (380 px) without scrolling sideways');
}

// Output, a file name and a file's content that try to be HTML, script or
// terminal escapes.
const EVIL = `printf '<script>window.__pwned=1</script>\\n'
printf '<img src=x onerror="window.__pwned=2">\\n'
printf '\\033[31mRED\\033[0m \\033]0;title\\007 \\033[2J end\\n'
printf 'abc\\u202Efed\\n'
echo '<b onmouseover="window.__pwned=5">bold</b>' >&2
touch '<img src=x onerror=window.__pwned=3>.txt'
printf '<script>window.__pwned=4</script><img src=x onerror="window.__pwned=4">' > notes.html
`;
async function hostile(page) {
  await page.evaluate((code) => window.runCode({ language: 'bash', code, wait_s: 20 }), EVIL);
  const f = await view(page);
  await until(f, (s) => s === 'succeeded', 20000, 'the hostile job');
  const out = await text(f, '#stdout');
  ok(out.includes('<script>window.__pwned=1</script>'), 'a <script> in stdout shows as text', out);
  ok(out.includes('<img src=x onerror="window.__pwned=2">'), 'an <img onerror> in stdout shows as text');
  ok(!out.includes('\x1b') && /\u241b\[31mRED\u241b\[0m/.test(out) && out.includes('\u241b]0;title\u2407'),
    'terminal escapes show as visible symbols, never interpreted', JSON.stringify(out));
  ok(out.includes('abc<U+202E>fed'), 'a right-to-left override shows as <U+202E>, not reordering text');
  like(await text(f, '#stderr'), /<b onmouseover="window.__pwned=5">bold<\/b>/, 'markup in stderr shows as text');
  await f.waitForSelector('#files button', { timeout: 10000 }).catch(() => {});
  like(await text(f, '#files'), /<img src=x onerror=window\.__pwned=3>\.txt/, 'a file name that is markup shows as text');
  await f.click('#files button >> text=notes.html');
  await f.waitForFunction(() => document.querySelector('#viewer-text').textContent.includes('pwned'), null, { timeout: 10000 }).catch(() => {});
  like(await text(f, '#viewer-text'), /<script>window\.__pwned=4<\/script>/, 'a file holding markup opens as text');
  await sleep(500);
  const dom = await f.evaluate(() => ({
    pwned: window.__pwned,
    scripts: document.scripts.length,
    stray: document.querySelectorAll('img[src="x"], [onerror], [onmouseover], b').length,
    kids: ['stdout', 'stderr', 'viewer-text'].map((id) => document.getElementById(id).childElementCount),
  }));
  ok(dom.pwned === undefined && dom.scripts === 1 && dom.stray === 0 && dom.kids.join() === '0,0,0',
    'nothing of it became an element or ran', dom);
  // Run again: the same code, a new job, the same output
  const first = await text(f, '#job');
  await f.click('#again');
  await f.waitForFunction((j) => document.querySelector('#job').textContent !== j, first, { timeout: 10000 }).catch(() => {});
  await until(f, (s) => s === 'succeeded', 20000, 'run again');
  ok((await text(f, '#job')) !== first && (await text(f, '#stdout')).includes('<script>window.__pwned=1</script>'),
    'Run again runs the same code as a new job');
  // Control: the same output put into the view as HTML does run.
  const control = await f.evaluate(async (s) => {
    const d = document.createElement('div');
    d.innerHTML = s;  // what the view must never do
    document.body.append(d);
    await new Promise((res) => setTimeout(res, 500));
    d.remove();
    return window.__pwned;
  }, out);
  is(control, 2, 'control: that output, parsed as HTML in the view, runs its onerror');
}

// An error whose text carries markup (sr-mcp names the bad env variable).
async function errors(page) {
  const evil = '<img src=x onerror="window.__pwned=9">';
  await page.evaluate((l) => window.runCode({ language: 'bash', code: 'x', env: { [l]: '1' }, wait_s: 0 }), evil);
  const f = await view(page);
  await f.waitForFunction(() => !document.querySelector('#note').hidden, null, { timeout: 10000 }).catch(() => {});
  const got = await f.evaluate(() => ({ note: document.querySelector('#note').textContent, pwned: window.__pwned,
    imgs: document.querySelectorAll('img').length }));
  ok(got.note.includes(evil) && got.pwned === undefined && got.imgs === 0,
    'an error that echoes markup shows it as text', got);
}

async function cancel(page) {
  const code = 'import time\nfor i in range(600):\n    print("still here", i, flush=True)\n    time.sleep(0.1)\n';
  await page.evaluate((c) => window.runCode({ language: 'python', code: c, wait_s: 0 }), code);
  const f = await view(page);
  await until(f, (s) => s === 'running', 15000, 'the job to cancel');
  await f.waitForFunction(() => document.querySelector('#stdout').textContent.includes('still here'), null, { timeout: 10000 }).catch(() => {});
  ok(!(await f.$eval('#cancel', (b) => b.disabled)), 'Cancel is offered while the job runs');
  ok(await f.$eval('#expose-box', (b) => b.hidden), 'a running job that is no session call offers no port to open');
  const t0 = Date.now();
  await f.click('#cancel');
  const s = await until(f, (x) => x === 'cancelled', 10000, 'cancel');
  is(s, 'cancelled', `Cancel stops the job (${Date.now() - t0} ms)`);
  const job = await text(f, '#job');
  const m = mcpStdio(server, env);
  await m.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
  const st = await m.request('tools/call', { name: 'job_status', arguments: { job_id: job } });
  is(st.result.structuredContent.status, 'cancelled', 'sr-mcp says the job is cancelled');
  const a = (await text(f, '#stdout')).length;
  await sleep(1500);
  is((await text(f, '#stdout')).length, a, 'no output comes after the cancel');
  ok(await f.$eval('#cancel', (b) => b.disabled), 'Cancel is no longer offered');
  m.child.stdin.end();
  await m.gone;
  // a run that fails (an isError result) followed to its end
  await page.evaluate(() => window.runCode({ language: 'bash', code: 'sleep 1.5; echo oops >&2; exit 3', wait_s: 0 }));
  const g = await view(page);
  is(await until(g, (x) => x === 'failed', 15000, 'the failing job'), 'failed', 'a failing run is followed to status failed');
  like(await text(g, '#facts'), /exit code 3/, 'with its exit code');
  like(await text(g, '#stderr'), /oops/, 'and its stderr');
}

// ---- the demo host: loopback, its own Host, its own header --------------------
{
  const h = await startHost({ command: server, env });
  const port = new URL(h.url).port;
  const ask = (method, path, headers, data) => new Promise((res) => {
    const q = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (a) => {
      let b = '';
      a.on('data', (c) => { b += c; });
      a.on('end', () => res({ code: a.statusCode, body: b, csp: a.headers['content-security-policy'], xfo: a.headers['x-frame-options'] }));
    });
    q.on('error', (e) => res({ code: 0, body: String(e) }));
    q.end(data);
  });
  const call = JSON.stringify({ method: 'tools/call', params: { name: 'run_code',
    arguments: { language: 'bash', code: 'echo ran' } } });
  const json = { 'Content-Type': 'application/json', 'X-SR-Host': '1' };
  let a = await ask('POST', '/rpc', json, call);
  like(a.body, /ran\\n/, 'demo host: a POST with its header runs the code (control)');
  a = await ask('POST', '/rpc', { 'Content-Type': 'text/plain' }, call);
  is(a.code, 403, 'demo host: a POST without its header (what another site\'s page can send) is refused');
  a = await ask('POST', '/rpc', { ...json, Host: 'attacker.example:' + port }, call);
  is(a.code, 421, 'demo host: another Host (DNS rebinding) is refused');
  a = await ask('POST', '/rpc', json, JSON.stringify({ method: 'initialize', params: {} }));
  like(a.body, /forwards tools\/call and resources\/read only/, 'demo host: other methods are not forwarded');
  a = await ask('GET', '/view', {});
  ok(a.code === 200 && /default-src 'none'/.test(a.csp || '') && /connect-src 'none'/.test(a.csp || ''),
    'demo host: the view is served under the restrictive CSP', a.csp);
  ok(/frame-ancestors 'self'/.test(a.csp || '') && a.xfo === 'SAMEORIGIN', 'demo host: only its own pages may frame the view', a);
  a = await ask('GET', '/', {});
  ok(/frame-ancestors 'none'/.test(a.csp || '') && a.xfo === 'DENY', 'demo host: no page may frame the host page (clickjacking)', a.csp);
  a = await ask('GET', '/nothing', {});
  ok(a.code === 404 && /frame-ancestors 'none'/.test(a.csp || '') && a.xfo === 'DENY', 'demo host: nor any other answer', a.csp);
  ok(h.mcp.child.pid && (await h.close(), true), 'demo host: closes, and its sr-mcp ends');
}

// ---- the view in Chromium --------------------------------------------------------
await browser(await playwrightOrSkip('the view in headless Chromium'));
done();
process.exit();
