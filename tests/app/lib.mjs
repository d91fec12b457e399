// lib.mjs - what the browser tests of sr-mcp's MCP App share: the demo
// host (sr-mcp/app/host.mjs) around a real sr-mcp, with headless Chromium
// (Debian's chromium, driven by the pinned playwright-core) on its page.
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ok, skip, done, sleep } from '../mcp/tap.mjs';
import { startHost } from '../../sr-mcp/app/host.mjs';

const chromiumPath = [process.env.SR_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));

// playwright-core, or the end of the test: a skip that says why (a
// failure under CI, where the browser must run).
export async function playwrightOrSkip(what) {
  let pw = null;
  try { pw = await import('playwright-core'); } catch (e) { pw = null; }
  const why = !chromiumPath ? 'no chromium here (Debian\'s chromium package; scripts/deps.sh check installs it)'
    : !pw ? 'playwright-core is not installed (cd tests/app && npm ci)' : null;
  if (!why) return pw;
  if (process.env.CI === 'true') ok(false, 'the browser test runs under CI', why);
  else skip(what, why);
  done();
  process.exit();
}

// withBrowser(pw, { command, env }, fn): fn({ host, ctx, page }) inside the
// demo host's page; everything closed after it.
export async function withBrowser(pw, opts, fn) {
  const host = await startHost(opts);
  const profile = mkdtempSync(join(process.env.TMPDIR || tmpdir(), 'sr-app-chromium.'));
  const ctx = await pw.chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath, headless: true, chromiumSandbox: false,
    viewport: { width: 1000, height: 1300 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = ctx.pages()[0] || await ctx.newPage();
  try {
    await page.goto(host.url);
    await fn({ host, ctx, page });
  } finally {
    await ctx.close();
    await host.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

// The iframe of the view mounted last, once its page has loaded.
export async function view(page) {
  await page.waitForFunction(() => document.querySelector('#view'));
  for (let i = 0; i < 100; i++) {
    const f = page.frames().find((x) => x.url().endsWith('/view'));
    if (f) {
      try { await f.waitForSelector('#status', { timeout: 5000 }); return f; } catch (e) { /* remounted */ }
    }
    await sleep(100);
  }
  throw new Error('the view did not load');
}
export const text = (f, sel) => f.$eval(sel, (e) => e.textContent);
