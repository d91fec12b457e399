// http-lib.mjs - sr-mcp-http under test: started on a free loopback port
// with two tenants, and SDK clients over StreamableHTTPClientTransport.
// The gateway runs sr-mcp through a wrapper that writes down each start's
// pid (its process group), so a test can tell which processes were a
// session's.
import { spawn } from 'node:child_process';
import { writeFileSync, readFileSync, chmodSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { root, stateDir, serverEnv } from './tap.mjs';

export const tokens = { alice: 'alice-token-0123456789abcdef', bob: 'bob-token-0123456789abcdefgh' };

export async function startGateway(args = [], env = {}) {
  const dir = stateDir();
  writeFileSync(join(dir, 'tokens'), Object.entries(tokens).map(([n, t]) => `${n} ${t}\n`).join(''), { mode: 0o600 });
  writeFileSync(join(dir, 'starts'), '');
  writeFileSync(join(dir, 'sr-mcp'), `#!/bin/sh\necho $$ >>'${dir}/starts'\nexec '${root}/sr-mcp/sr-mcp' "$@"\n`);
  chmodSync(join(dir, 'sr-mcp'), 0o755);
  const p = spawn(join(root, 'sr-mcp/http/sr-mcp-http'), ['--listen', '127.0.0.1:0', '--tokens', join(dir, 'tokens'),
    '--state-dir', join(dir, 'state'), '--sr-mcp', join(dir, 'sr-mcp'), ...args],
  { env: serverEnv(join(dir, 'unused'), env), stdio: ['ignore', 'inherit', 'pipe'] });
  let log = '';
  const port = await new Promise((resolve, reject) => {
    p.stderr.on('data', (d) => {
      log += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(log);
      if (m) resolve(Number(m[1]));
    });
    p.on('exit', (c) => reject(new Error(`sr-mcp-http ended (${c}): ${log}`)));
  });
  process.on('exit', () => p.kill());
  return {
    url: `http://127.0.0.1:${port}/mcp`, port, dir, proc: p, log: () => log,
    starts: () => readFileSync(join(dir, 'starts'), 'utf8').split('\n').filter(Boolean).map(Number),
    stop: () => new Promise((res) => { p.on('exit', res); p.kill('SIGTERM'); }),
    rss: () => rssOf(p.pid),
    // what the front holds (its SIGUSR2 line)
    stats: async () => {
      const before = (log.match(/: stats /g) || []).length;
      p.kill('SIGUSR2');
      for (let i = 0; i < 100 && (log.match(/: stats /g) || []).length === before; i++) await new Promise((r) => setTimeout(r, 50));
      const all = [...log.matchAll(/: stats (\{.*\})\n/g)];
      return all.length > before ? JSON.parse(all[all.length - 1][1]) : null;
    },
  };
}

// A process's resident memory in bytes (0 when gone).
export function rssOf(pid) {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
  } catch {
    return 0;
  }
}

// A raw POST (fetch): { status, headers, text, json }.
export async function post(gw, tenant, body, { sid, accept = 'application/json, text/event-stream', headers = {} } = {}) {
  const h = { Authorization: `Bearer ${tokens[tenant]}`, 'Content-Type': 'application/json', Accept: accept, ...headers };
  if (sid) h['Mcp-Session-Id'] = sid;
  const r = await fetch(gw.url, { method: 'POST', headers: h, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* SSE, or nothing */ }
  return { status: r.status, headers: r.headers, text, json };
}

// A new session of tenant's, opened with a raw initialize: its id.
export async function session(gw, tenant) {
  const r = await post(gw, tenant, { jsonrpc: '2.0', id: 0, method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }, { accept: 'application/json' });
  const sid = r.headers.get('mcp-session-id');
  if (!sid) throw new Error(`initialize: ${r.status} ${r.text.slice(0, 300)}`);
  await post(gw, tenant, { jsonrpc: '2.0', method: 'notifications/initialized' }, { sid });
  return sid;
}

// The JSON-RPC messages of an SSE body.
export const events = (text) => [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]));

export async function connect(gw, tenant, name = `sr-test-http-${tenant}`) {
  const client = new Client({ name, version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(gw.url),
    { requestInit: { headers: { Authorization: `Bearer ${tokens[tenant]}` } } });
  await client.connect(transport);
  return client;
}

// The processes still in any of these process groups.
export function inGroups(pgids) {
  const want = new Set(pgids), left = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat;
    try { stat = readFileSync(`/proc/${pid}/stat`, 'utf8'); } catch { continue; }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (want.has(Number(f[2]))) left.push(`${pid} (${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}, ${f[0]})`);
  }
  return left.filter((l) => !/, Z\)$/.test(l));
}

// What is left of these process groups after up to 5 s ('' when none).
export async function leftAfter(pgids) {
  let left;
  for (let i = 0; i < 50; i++) {
    left = inGroups(pgids);
    if (!left.length) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return left.join(', ');
}
