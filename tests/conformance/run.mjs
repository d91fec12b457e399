// run.mjs - the official MCP conformance suite against sr-mcp, as TAP.
//
// The suite speaks Streamable HTTP. It runs against two servers, each for
// the scenarios the 2025-11-25 requirements name and those of 2026-07-28
// (with the tasks extension's), all four runs at once:
//   http   sr-mcp-http itself, with a bearer token (a proxy here adds the
//          Authorization header the suite does not send, and changes
//          nothing else): the front's own HTTP rules are what is checked;
//   stdio  sr-mcp over stdio, through supergateway (one sr-mcp per session,
//          or per request for 2026-07-28).
// Each scenario is one TAP line: ok when each of its failing checks is
// listed in expected-failures (both runs) or expected-failures-stdio (the
// gateway's run: what the gateway, not sr-mcp, lacks); then one line per
// entry, not ok when its check passes now or was never reached. Run with
// the Node this directory pins (Node 22), SR_ROOT set and the sandbox's
// tools on PATH (tests/96-mcp-conformance.t).
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, readdirSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const REVISIONS = ['2025-11-25', '2026-07-28'];
const RUN_LIMIT_MS = 180000;
const TOKEN = 'conformance-token-0123456789abcdef';
let n = 0, failed = 0;
const diag = (s) => console.log(String(s).replace(/^/gm, '# '));
function ok(cond, desc, ...why) {
  n++;
  console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${desc}`);
  if (!cond) { failed++; why.forEach(diag); }
}

// An expected-failures file: "SCENARIO:CHECK-ID  REASON" lines, # comments.
function expected(file) {
  const list = [];
  for (const raw of readFileSync(join(here, file), 'utf8').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [, key, reason] = line.match(/^(\S+)\s*(.*)$/);
    ok(/^[a-z0-9-]+(:[a-z0-9-]+)?$/.test(key) && reason, `${file}: ${key} names a scenario or check, with a reason`, raw);
    list.push([key, file]);
  }
  return list;
}
// key -> { file, seen: the statuses its checks had }, for one server
const entries = (...lists) => new Map(lists.flat().map(([key, file]) => [key, { file, seen: [] }]));

const freePort = () => new Promise((res, rej) => {
  const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => res(port)); });
  s.on('error', rej);
});
const listening = (port) => new Promise((res) => {
  const c = connect(port, '127.0.0.1', () => { c.end(); res(true); });
  c.on('error', () => res(false));
});
// Under SAN=address no memory limit, which ASan's shadow memory fits in none of (tests/mcp/tap.mjs).
const san = /address/.test(process.env.SAN || '') ? { SR_MCP_MEMORY: 'off' } : {};

async function gateway(tmp) {
  const port = await freePort();
  const log = join(tmp, 'gateway.log');
  const mcp = join(process.env.SR_ROOT, 'sr-mcp/sr-mcp');
  const env = { ...process.env, SR_MCP_STATE_DIR: join(tmp, 'state'), ...san };
  const p = spawn(process.execPath, [join(here, 'node_modules/supergateway/dist/index.js'),
    '--stdio', `'${mcp}'`, '--outputTransport', 'streamableHttp', '--stateful',
    '--port', String(port), '--logLevel', 'info'], { env, stdio: ['ignore', openSync(log, 'w'), openSync(log, 'a')] });
  for (let i = 0; i < 100 && p.exitCode === null && !(await listening(port)); i++)
    await new Promise((r) => setTimeout(r, 100));
  return { name: 'stdio', what: `supergateway in front of sr-mcp (stdio) on 127.0.0.1:${port}`, procs: [p], port, log };
}

// sr-mcp-http on a port of its own, and in front of it the proxy the
// suite talks to, which adds the bearer token; sr-mcp-http takes the
// proxy's Host (--allow-host), as it would behind a reverse proxy.
async function front(tmp) {
  const port = await freePort();
  const log = join(tmp, 'front.log');
  writeFileSync(join(tmp, 'tokens'), `conformance ${TOKEN}\n`, { mode: 0o600 });
  const env = { ...process.env, ...san };
  delete env.SR_MCP_TOKEN;
  const p = spawn(join(process.env.SR_ROOT, 'sr-mcp/http/sr-mcp-http'), ['--listen', '127.0.0.1:0',
    '--tokens', join(tmp, 'tokens'), '--state-dir', join(tmp, 'http-state'),
    '--allow-host', `127.0.0.1:${port}`, '--allow-host', `localhost:${port}`,
    '--sr-mcp', join(process.env.SR_ROOT, 'sr-mcp/sr-mcp')], { env, stdio: ['ignore', 'ignore', openSync(log, 'w')] });
  let target = 0;
  for (let i = 0; i < 200 && p.exitCode === null && !target; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(readFileSync(log, 'utf8'));
    if (m) target = Number(m[1]);
  }
  const proxy = http.createServer((req, res) => {
    const headers = { ...req.headers };
    if (!headers.authorization) headers.authorization = `Bearer ${TOKEN}`;
    const up = http.request({ host: '127.0.0.1', port: target, method: req.method, path: req.url, headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());   // a stream the suite closes is closed at the server too
    req.pipe(up);
  });
  if (target) await new Promise((r) => proxy.listen(port, '127.0.0.1', r));
  return { name: 'http', what: `sr-mcp-http (bearer token) on 127.0.0.1:${port}`, procs: [p], proxy, port: target ? port : 0, log };
}

// One run of the suite: its output directory, or null (said why).
function suite(t, rev, tmp) {
  const out = join(tmp, `${t.name}-${rev}`);
  const log = openSync(join(tmp, `${t.name}-${rev}.log`), 'w');
  const p = spawn(process.execPath, [join(here, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'),
    'server', '--url', `http://127.0.0.1:${t.port}/mcp`, '--requirements', rev, '-o', out, '--timeout', '20000'],
  { stdio: ['ignore', log, log] });
  const limit = setTimeout(() => p.kill('SIGKILL'), RUN_LIMIT_MS);
  return new Promise((res) => p.on('exit', (code, sig) => { clearTimeout(limit); res({ t, rev, out, code, sig }); }));
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

function judge(label, scenario, checks, entries) {
  const bad = [];
  for (const c of checks) {
    const e = entries.get(`${scenario}:${c.id}`) ?? entries.get(scenario);
    if (e) e.seen.push(c.status);
    if (c.status === 'FAILURE' && !e) bad.push(`${c.id}: ${(c.errorMessage || '').slice(0, 400)}`);
  }
  const nf = checks.filter((c) => c.status === 'FAILURE').length;
  ok(bad.length === 0, `[${label}] ${scenario}: ${checks.length - nf} checks pass` +
     (nf ? `, ${nf - bad.length} fail as expected-failures says` : ''), ...bad);
}

const tmp = mkdtempSync(join(process.env.TMPDIR || tmpdir(), 'sr-conformance.'));
const targets = await Promise.all([front(tmp), gateway(tmp)]);
const both = expected('expected-failures'), stdio = expected('expected-failures-stdio');
const lists = { http: entries(both), stdio: entries(both, stdio) };
for (const t of targets) {
  t.up = t.port && t.procs.every((p) => p.exitCode === null) && await listening(t.port);
  ok(t.up, `[${t.name}] ${t.what} serves`, t.up ? '' : readFileSync(t.log, 'utf8').slice(-2000));
}
const runs = await Promise.all(targets.filter((t) => t.up).flatMap((t) => REVISIONS.map((rev) => suite(t, rev, tmp))));
for (const t of targets) {
  t.procs.forEach((p) => p.kill());
  if (t.proxy) t.proxy.close();
}
for (const { t, rev, out, code, sig } of runs) {
  const by = results(out), label = `${t.name} ${rev}`;
  ok(by.size > 10 && !sig, `[${label}] the suite ran (${by.size} scenarios, exit ${code ?? sig})`,
     readFileSync(join(tmp, `${t.name}-${rev}.log`), 'utf8').slice(-3000));
  for (const [scenario, checks] of [...by].sort()) judge(label, scenario, checks, lists[t.name]);
}
for (const t of targets.filter((x) => runs.some((r) => r.t === x))) {
  for (const [key, e] of lists[t.name]) {
    const fails = e.seen.includes('FAILURE'), passes = !fails && e.seen.includes('SUCCESS');
    ok(fails, `[${t.name}] ${e.file}: ${key} ${fails ? 'still fails' : passes ? 'passes now' : 'was not reached'}`,
       passes ? `it passes now: remove it from tests/conformance/${e.file}`
         : 'no run reported this check (renamed, or its scenario stops earlier now?): fix or remove the entry');
  }
}
// sr-mcp-http's log after some 200 requests, half of them stateless (an
// sr-mcp each, ended after its answer) and sessions ended to make room:
// nothing that would send an administrator looking for a fault.
const flog = readFileSync(targets[0].log, 'utf8').split('\n').filter((l) => l && !/: listening on http/.test(l));
ok(!flog.length, `[http] sr-mcp-http's log says nothing after the runs (${flog.length} lines)`, ...flog.slice(0, 20));
rmSync(tmp, { recursive: true, force: true });
console.log(`1..${n}`);
process.exitCode = failed ? 1 : 0;
