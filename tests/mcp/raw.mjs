// raw.mjs - the wire itself, line by line, where a client library would
// hide it: every protocol version, malformed and oversized lines,
// batches, notifications, unknown versions.
import { spawn } from 'node:child_process';
import { ok, is, like, done, server, stateDir, serverEnv } from './tap.mjs';

const state = stateDir();
function start() {
  const p = spawn(server, [], { env: serverEnv(state), stdio: ['pipe', 'pipe', 'pipe'] });
  let buf = '', waiters = [], lines = [], bad = [];
  p.stdout.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i); buf = buf.slice(i + 1);
      let m; try { m = JSON.parse(line); } catch { bad.push(line); continue; }
      lines.push(m);
      const w = waiters.shift(); if (w) w(m);
    }
  });
  const next = (ms = 20000) => new Promise((res, rej) => {
    if (lines.length > waiters.length) { res(lines[lines.length - 1 - waiters.length]); return; }
    const t = setTimeout(() => rej(new Error('no answer')), ms);
    waiters.push((m) => { clearTimeout(t); res(m); });
  });
  const send = (o) => p.stdin.write((typeof o === 'string' ? o : JSON.stringify(o)) + '\n');
  const ask = async (o) => { lines = []; send(o); return next(); };
  return { p, send, ask, next, bad: () => bad, quiet: async (ms) => { lines = []; await new Promise((r) => setTimeout(r, ms)); return lines.length; } };
}
const init = (v, id = 1) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const modern = (v) => ({ 'io.modelcontextprotocol/protocolVersion': v, 'io.modelcontextprotocol/clientCapabilities': {} });

for (const v of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
  const s = start();
  const r = await s.ask(init(v));
  is(r.result?.protocolVersion, v, `initialize ${v}: answered in that version`);
  s.p.kill();
}
let s = start();
let r = await s.ask(init('1999-01-01'));
is(r.result?.protocolVersion, '2025-11-25', 'initialize with an unknown version: answered 2025-11-25');
s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
is(await s.quiet(300), 0, 'a notification gets no answer');
r = await s.ask({ jsonrpc: '2.0', id: 2, method: 'ping' });
ok(r.id === 2 && r.result && !r.error, 'ping is answered');
r = await s.ask('{"jsonrpc": "2.0", "id": 3, "method": ');
ok(r.error?.code === -32700 && r.id === null, 'a line that is not JSON: -32700 with id null');
r = await s.ask({ jsonrpc: '2.0', id: 4, method: 'ping' });
is(r.id, 4, '... and the server carries on');
r = await s.ask({ id: 5, method: 'ping' });
is(r.error?.code, -32600, 'a request without "jsonrpc": "2.0": -32600');
r = await s.ask('{"jsonrpc":"2.0","id":6,"method":"ping","params":{"pad":"' + 'x'.repeat(5 << 20) + '"}}');
ok(r.error?.code === -32600 && /longer than/.test(r.error.message), 'a line over 4 MiB: -32600, not read into memory', r.error);
r = await s.ask({ jsonrpc: '2.0', id: 7, method: 'ping' });
is(r.id, 7, '... and the server carries on');
r = await s.ask([{ jsonrpc: '2.0', id: 8, method: 'ping' }]);
is(r.error?.code, -32600, 'a batch under 2025-11-25: -32600');
r = await s.ask({ jsonrpc: '2.0', id: 9, method: 'prompts/list' });
is(r.error?.code, -32601, 'an unknown method: -32601');
r = await s.ask({ jsonrpc: '2.0', id: 10, method: 'tools/list', params: { _meta: modern('2030-01-01') } });
ok(r.error?.code === -32022 && r.error.data?.supported?.includes('2026-07-28') && r.error.data.requested === '2030-01-01',
  'a request in a version sr-mcp does not speak: -32022 with the supported ones', r.error);
r = await s.ask({ jsonrpc: '2.0', id: 11, method: 'server/discover', params: { _meta: modern('2026-07-28') } });
is(JSON.stringify(r.result?.supportedVersions), JSON.stringify(['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']),
  'server/discover lists every version');
is(r.result?.resultType, 'complete', '... with resultType complete');
is(r.result?._meta?.['io.modelcontextprotocol/serverInfo']?.name, 'sr-mcp', '... and serverInfo in _meta');
r = await s.ask({ jsonrpc: '2.0', id: 12, method: 'tools/list', params: { _meta: modern('2026-07-28') } });
ok(r.result?.resultType === 'complete' && r.result.tools?.length >= 6 && r.result.ttlMs === 0, 'tools/list in 2026-07-28 terms');
r = await s.ask({ jsonrpc: '2.0', id: 13, method: 'tools/call', params: { name: 'run_code', arguments: { language: 'bash', code: 'echo raw' }, _meta: modern('2026-07-28') } });
ok(r.result?.resultType === 'complete' && r.result.structuredContent?.stdout === 'raw\n', 'tools/call in 2026-07-28 terms', r);
is(s.bad().length, 0, 'nothing but JSON lines on stdout');
s.p.stdin.end();
s = start();
await s.ask(init('2025-03-26'));
r = await s.ask([{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' }]);
ok(Array.isArray(r) && r.length === 2 && r[0].id === 1 && r[1].result?.tools, 'a batch under 2025-03-26 gets one array of answers', r);
r = await s.ask([]);
is(r.error?.code, -32600, 'an empty batch: -32600');
s.p.stdin.end();
// A state directory that cannot be made: every tool says so, nothing runs.
{
  const bad = spawn(server, [], { env: serverEnv('/proc/sr-no-such/state'), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '', errout = '';
  bad.stdout.on('data', (d) => { out += d; });
  bad.stderr.on('data', (d) => { errout += d; });
  bad.stdin.write(JSON.stringify(init('2025-11-25')) + '\n');
  bad.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run_code', arguments: { language: 'bash', code: 'echo ran' } } }) + '\n');
  bad.stdin.end();
  await new Promise((res) => bad.on('close', res));
  const answer = out.trim().split('\n').map((l) => JSON.parse(l)).find((m) => m.id === 2);
  ok(answer?.result?.isError && /state directory .* cannot be made .*--state-dir/.test(answer.result.content[0].text),
    'a state directory that cannot be made: an isError result saying what to set', answer);
  ok(!/ran/.test(out), '... and nothing ran');
  is(errout.trim().split('\n').filter((l) => /state directory/.test(l)).length, 1, '... said once in the log (stderr)');
}
// No user namespaces: sr-mcp says so once, in one line, and runs nothing.
// (An installed layout whose sr-jail fails as it does where the kernel
// refuses unprivileged user namespaces.)
{
  const { mkdtempSync, writeFileSync, copyFileSync, symlinkSync, chmodSync, mkdirSync } = await import('node:fs');
  const bin = mkdtempSync(`${process.env.TMPDIR || '/tmp'}/sr-nons.`);
  copyFileSync(server, `${bin}/sr-mcp`); chmodSync(`${bin}/sr-mcp`, 0o755);
  for (const t of ['sr-queue', 'sr-limit', 'sr-exec']) symlinkSync(`${process.env.SR_ROOT}/${t}/${t}`, `${bin}/${t}`);
  writeFileSync(`${bin}/sr-jail`, '#!/bin/sh\necho "sr-jail: fatal: unable to create the namespaces (user, mount, pid): Operation not permitted" >&2\nexit 111\n');
  chmodSync(`${bin}/sr-jail`, 0o755);
  mkdirSync(`${bin}/runners`);
  copyFileSync(`${process.env.SR_ROOT}/sr-mcp/runners/bash`, `${bin}/runners/bash`); chmodSync(`${bin}/runners/bash`, 0o755);
  const nons = spawn(`${bin}/sr-mcp`, [], { env: serverEnv(stateDir()), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '', errout = '';
  nons.stdout.on('data', (d) => { out += d; });
  nons.stderr.on('data', (d) => { errout += d; });
  for (const [id, code] of [[2, 'echo ran > /tmp/x; echo ran'], [3, 'echo again']])
    nons.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'run_code', arguments: { language: 'bash', code } } }) + '\n');
  setTimeout(() => nons.stdin.end(), 1500);
  await new Promise((res) => nons.on('close', res));
  const answers = out.trim().split('\n').map((l) => JSON.parse(l));
  ok(answers.length === 2 && answers.every((a) => a.result?.isError && /user namespaces/.test(a.result.content[0].text)),
    'without user namespaces every run is an isError result naming the fix', answers);
  ok(!/"ran/.test(out), '... nothing ran');
  is(errout.trim().split('\n').filter((l) => /user namespaces/.test(l)).length, 1, '... said in one line of the log');
}
done();
process.exit();
