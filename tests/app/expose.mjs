// expose.mjs - the MCP App shows a session's published server, by
// tests/97-mcp-app-expose.t. In headless Chromium inside the demo host, a
// session call that does not return serves a page with python3 -m
// http.server 8000; the view offers "Open port 8000"; a click gives the
// link (expose_port through the host); the host opens it (ui/open-link) in
// a new tab that shows the page; a view of job_status of that call (which
// knows no language: list_jobs names it) gives the same link; after
// close_session the link is dead and
// the view says so. Answers of expose_port that are errors or carry a
// URL that is not http(s) (the host's /rpc answered by the test) give a
// note, never a link. Control: a session call that has ended offers no
// button (a plain run offering none is in tests/app/run.mjs).
import { ok, is, like, done, diag, server, stateDir, serverEnv, sleep, until } from '../mcp/tap.mjs';
import { playwrightOrSkip, withBrowser, view, text } from './lib.mjs';

const env = serverEnv(stateDir());
const WS = 'demo';
const TOKEN = 'sr page of port eight thousand';
const SERVE = `import os, subprocess
os.makedirs('site', exist_ok=True)
open('site/index.html', 'w').write('<!DOCTYPE html><title>sr</title><p id="t">${TOKEN}</p>')
print('serving', flush=True)
subprocess.run(['python3', '-m', 'http.server', '8000', '--directory', 'site'])
`;
const shown = (f, sel) => f.$eval(sel, (e) => !e.hidden && !e.closest('[hidden]'));
const get = async (url) => { try { const r = await fetch(url); return `${r.status} ${await r.text()}`; } catch (e) { return `failed: ${e.cause?.code || e.message}`; } };

async function waitFor(f, fn, arg, ms) {
  return f.waitForFunction(fn, arg, { timeout: ms }).then(() => true, () => false);
}

// The host's /rpc answers expose_port with `answer`: the view's note, no link.
async function forged(page, f, answer, what) {
  await page.route('**/rpc', async (route) => {
    const q = JSON.parse(route.request().postData() || '{}');
    if (q.params && q.params.name === 'expose_port')
      return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ result: answer }) });
    return route.continue();
  });
  await f.evaluate(() => { document.querySelector('#note').hidden = true; });
  await f.click('#expose');
  await waitFor(f, () => !document.querySelector('#note').hidden, null, 10000);
  const got = await f.evaluate(() => ({ note: document.querySelector('#note').textContent,
    link: !document.querySelector('#expose-link').hidden, href: document.querySelector('#expose-link').getAttribute('href'),
    pwned: window.__pwned, kids: document.querySelector('#note').childElementCount }));
  await page.unroute('**/rpc');
  ok(!got.link && got.href === null && got.pwned === undefined && got.kids === 0, `${what}: a note, no link`, got);
  return got.note;
}

async function expose(page, ctx, host) {
  // the demo host's form, its session box ticked (a session call of workspace demo, wait_s 0)
  await page.waitForFunction(() => [...document.querySelectorAll('#language option')].some((o) => o.value === 'python'));
  await page.selectOption('#language', 'python');
  await page.fill('#code', SERVE);
  await page.check('#session');
  await page.click('#run');
  const f = await view(page);
  ok(await waitFor(f, () => { const b = document.querySelector('#expose'); return b && !b.hidden && !b.closest('[hidden]'); }, null, 60000),
    'a running session call: the view offers the port', await text(f, '#status'));
  like(await text(f, '#expose'), /^Open port 8000$/, 'the button names the port (sandbox_info\'s expose_port)');

  // attacks first: what expose_port answers is data
  let n = await forged(page, f, { isError: true, content: [{ type: 'text', text: 'no <b>live</b> python session' }] }, 'an isError answer');
  like(n, /expose_port failed: no <b>live<\/b> python session/, 'an isError answer is shown as a note, as text');
  for (const u of ['javascript:window.__pwned=1//http://x/', 'data:text/html,<script>window.__pwned=2</script>', 'file:///etc/passwd', 'not a url'])
    like(await forged(page, f, { structuredContent: { url: u }, content: [] }, `a url ${JSON.stringify(u)}`),
      /no http\(s\) url/, `a url ${JSON.stringify(u)} is no link`);
  ok(await f.evaluate(() => { const a = document.createElement('a'); a.href = 'javascript:void 0'; return a.protocol === 'javascript:'; }),
    'control: an <a> takes a javascript: href as it is (only the check keeps it out)');

  // the real thing: the session may still be starting, its server too
  let href = null;
  const end = Date.now() + 90000;
  while (!href && Date.now() < end) {
    await f.click('#expose');
    await waitFor(f, () => !document.querySelector('#expose-link').hidden || !document.querySelector('#note').hidden, null, 10000);
    href = await f.$eval('#expose-link', (a) => (a.hidden ? null : a.getAttribute('href')));
    if (!href) { diag('not yet: ' + await text(f, '#note')); await sleep(1000); }
  }
  like(href, /^http:\/\/127\.0\.0\.1:\d+\/$/, 'a click gives the link to the server, on the host\'s 127.0.0.1');
  const a = await f.$eval('#expose-link', (x) => ({ text: x.textContent, rel: x.rel, target: x.target, kids: x.childElementCount }));
  ok(a.text === href && a.rel === 'noopener noreferrer' && a.target === '_blank' && a.kids === 0,
    'shown as a link in text, target _blank, rel noopener noreferrer', a);
  ok(await until(async () => (await get(href)).includes(TOKEN), 60), 'the server answers there', await get(href));

  const [tab] = await Promise.all([ctx.waitForEvent('page', { timeout: 20000 }), f.click('#expose-link')]);
  const opened = await page.evaluate(() => window.openedLinks.slice());
  is(opened.join(), href, 'a click on it asks the host to open it (ui/open-link)');
  let seen = '';
  for (let i = 0; i < 30 && !seen.includes(TOKEN); i++) {
    await tab.waitForLoadState('load').catch(() => {});
    seen = await tab.evaluate(() => document.body ? document.body.innerText : '').catch(() => '');
    if (!seen.includes(TOKEN)) { await sleep(1000); await tab.reload().catch(() => {}); }
  }
  ok(seen.includes(TOKEN), 'the new tab shows the session\'s page', seen.slice(0, 200));
  ok(await tab.evaluate(() => window.opener === null), 'the tab has no opener (cannot reach the host page)');
  is(tab.url(), href, 'at the link');
  await tab.close();

  // the same call shown by job_status (no language in its input: list_jobs names it)
  const job = await text(f, '#job');
  await page.evaluate((j) => window.jobStatus({ job_id: j }), job);
  const g = await view(page);
  ok(await waitFor(g, () => { const b = document.querySelector('#expose'); return b && !b.hidden && !b.closest('[hidden]'); }, null, 60000),
    'a view of job_status of that call offers the port too', await text(g, '#status'));
  await g.click('#expose');
  await waitFor(g, () => !document.querySelector('#expose-link').hidden || !document.querySelector('#note').hidden, null, 20000);
  is(await g.$eval('#expose-link', (a) => a.getAttribute('href')), href, 'and gives the same link', await text(g, '#note'));

  // close_session (the host's own client: its tenant): the link is dead, and the view says so
  const c = await host.mcp.request('tools/call', { name: 'close_session', arguments: { workspace_id: WS, language: 'python' } });
  ok(c.result && c.result.structuredContent && c.result.structuredContent.closed === true, 'close_session', c);
  ok(await until(async () => (await get(href)).startsWith('failed'), 60), 'after close_session the link is dead', await get(href));
  const t0 = Date.now();
  ok(await waitFor(g, () => document.querySelector('#expose-link').classList.contains('dead'), null, 180000),
    `the view marks it dead once the call has ended (${await text(g, '#status')} after ${Date.now() - t0} ms)`,
    JSON.stringify((await host.mcp.request('tools/call', { name: 'job_status', arguments: { job_id: job } })).result.structuredContent),
    await text(g, '#note'));
  ok(await g.evaluate(() => !document.querySelector('#expose-link').hasAttribute('href') &&
    document.querySelector('#expose').hidden), 'no href and no button then');
}

// Control: a session call that has ended offers no port to open.
async function ended(page) {
  await page.evaluate((ws) => window.runCode({ language: 'python', session: true, workspace_id: ws,
    wait_s: 60, code: 'print(6 * 7)' }), WS);
  const f = await view(page);
  await waitFor(f, () => document.querySelector('#status').textContent === 'succeeded', null, 60000);
  is(await text(f, '#status'), 'succeeded', 'a session call that returned');
  // the button waits on sandbox_info's expose_port: the view has that answer
  // once its limits name the processes (defaults.pids, from sandbox_info only)
  const limits = () => f.evaluate(() => [...document.querySelectorAll('#facts dt')]
    .filter((dt) => dt.textContent === 'limits').map((dt) => dt.nextElementSibling.textContent).join());
  ok(await until(async () => /\d+ processes/.test(await limits()), 60),
    'the ended call\'s view has sandbox_info\'s answer (its limits name the processes)', await text(f, '#facts'));
  ok(!(await shown(f, '#expose')), 'control: once ended it offers no port to open');
}

const pw = await playwrightOrSkip('the view in headless Chromium');
await withBrowser(pw, { command: server, env }, async ({ page, ctx, host }) => {
  await expose(page, ctx, host);
  await ended(page);
});
done();
process.exit();
