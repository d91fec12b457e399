// run.mjs - the official MCP conformance suite against sr-mcp, as TAP.
//
// The suite speaks Streamable HTTP and sr-mcp stdio: supergateway, started
// here on a free loopback port, runs one sr-mcp per session (stateful,
// 2025 generation) or per request (2026-07-28). The suite runs twice, at
// once: the scenarios the 2025-11-25 requirements name, and those of
// 2026-07-28 (with the tasks extension's). Each scenario is one TAP line:
// ok when each of its failing checks is listed in expected-failures; then
// one line per entry of that file, not ok when the check passes now or was
// never reached. Run with the Node this directory pins (Node 22), SR_ROOT
// set and the sandbox's tools on PATH (tests/96-mcp-conformance.t).
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const REVISIONS = ['2025-11-25', '2026-07-28'];
const RUN_LIMIT_MS = 120000;
let n = 0, failed = 0;
const diag = (s) => console.log(String(s).replace(/^/gm, '# '));
function ok(cond, desc, ...why) {
  n++;
  console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${desc}`);
  if (!cond) { failed++; why.forEach(diag); }
}

// expected-failures: "SCENARIO:CHECK-ID  REASON" lines, # comments.
function expected() {
  const entries = new Map();
  for (const raw of readFileSync(join(here, 'expected-failures'), 'utf8').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [, key, reason] = line.match(/^(\S+)\s*(.*)$/);
    ok(/^[a-z0-9-]+(:[a-z0-9-]+)?$/.test(key) && reason, `expected-failures: ${key} names a scenario or check, with a reason`, raw);
    entries.set(key, { reason, seen: [] });
  }
  return entries;
}

const freePort = () => new Promise((res, rej) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => res(port)); });
  s.on('error', rej);
});
const listening = (port) => new Promise((res) => {
  const c = connect(port, '127.0.0.1', () => { c.end(); res(true); });
  c.on('error', () => res(false));
});

async function gateway(tmp) {
  const port = await freePort();
  const log = openSync(join(tmp, 'gateway.log'), 'w');
  const mcp = join(process.env.SR_ROOT, 'sr-mcp/sr-mcp');
  // Under SAN=address no memory limit, which ASan's shadow memory fits in none of (tests/mcp/tap.mjs).
  const env = { ...process.env, SR_MCP_STATE_DIR: join(tmp, 'state'),
    ...(/address/.test(process.env.SAN || '') ? { SR_MCP_MEMORY: 'off' } : {}) };
  const gw = spawn(process.execPath, [join(here, 'node_modules/supergateway/dist/index.js'),
    '--stdio', `'${mcp}'`, '--outputTransport', 'streamableHttp', '--stateful',
    '--port', String(port), '--logLevel', 'info'], { env, stdio: ['ignore', log, log] });
  for (let i = 0; i < 100 && gw.exitCode === null && !(await listening(port)); i++)
    await new Promise((r) => setTimeout(r, 100));
  return { gw, port };
}

// One run of the suite: its output directory, or null (said why).
function suite(port, rev, tmp) {
  const out = join(tmp, rev);
  const log = openSync(join(tmp, `${rev}.log`), 'w');
  const p = spawn(process.execPath, [join(here, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'),
    'server', '--url', `http://127.0.0.1:${port}/mcp`, '--requirements', rev, '-o', out, '--timeout', '20000'],
  { stdio: ['ignore', log, log] });
  const limit = setTimeout(() => p.kill('SIGKILL'), RUN_LIMIT_MS);
  return new Promise((res) => p.on('exit', (code, sig) => { clearTimeout(limit); res({ rev, out, code, sig }); }));
}

// scenario name -> its checks, from the run's output directory.
function results(out) {
  const by = new Map();
  for (const d of existsSync(out) ? readdirSync(out) : []) {
    const m = d.match(/^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/);
    const f = join(out, d, 'checks.json');
    if (m && existsSync(f)) by.set(m[1], JSON.parse(readFileSync(f, 'utf8')));
  }
  return by;
}

function judge(rev, scenario, checks, entries) {
  const bad = [];
  for (const c of checks) {
    const e = entries.get(`${scenario}:${c.id}`) ?? entries.get(scenario);
    if (e) e.seen.push(c.status);
    if (c.status === 'FAILURE' && !e) bad.push(`${c.id}: ${(c.errorMessage || '').slice(0, 400)}`);
  }
  const nf = checks.filter((c) => c.status === 'FAILURE').length;
  ok(bad.length === 0, `[${rev}] ${scenario}: ${checks.length - nf} checks pass` +
     (nf ? `, ${nf - bad.length} fail as expected-failures says` : ''), ...bad);
}

const entries = expected();
const tmp = mkdtempSync(join(process.env.TMPDIR || tmpdir(), 'sr-conformance.'));
const { gw, port } = await gateway(tmp);
const up = gw.exitCode === null && await listening(port);
ok(up, `the gateway serves sr-mcp on 127.0.0.1:${port}`, up ? '' : readFileSync(join(tmp, 'gateway.log'), 'utf8').slice(-2000));
const runs = up ? await Promise.all(REVISIONS.map((rev) => suite(port, rev, tmp))) : [];
gw.kill();
for (const { rev, out, code, sig } of runs) {
  const by = results(out);
  ok(by.size > 10 && !sig, `[${rev}] the suite ran (${by.size} scenarios, exit ${code ?? sig})`,
     readFileSync(join(tmp, `${rev}.log`), 'utf8').slice(-3000));
  for (const [scenario, checks] of [...by].sort()) judge(rev, scenario, checks, entries);
}
for (const [key, e] of runs.length ? entries : []) {
  const fails = e.seen.includes('FAILURE'), passes = !fails && e.seen.includes('SUCCESS');
  ok(fails, `expected-failures: ${key} ${fails ? 'still fails' : passes ? 'passes now' : 'was not reached'}`,
     passes ? 'it passes now: remove it from tests/conformance/expected-failures'
       : 'no run reported this check (renamed, or its scenario stops earlier now?): fix or remove the entry');
}
rmSync(tmp, { recursive: true, force: true });
console.log(`1..${n}`);
process.exitCode = failed ? 1 : 0;
