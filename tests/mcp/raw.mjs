// raw.mjs - the wire itself, line by line, where a client library would
// hide it: every protocol version, malformed and oversized lines,
// batches (served concurrently, cancelled, over the in-flight limit, at the
// end of input), notifications, unknown versions, bytes that are not
// UTF-8 (every line out must be UTF-8 JSON).
import { spawn } from 'node:child_process';
import { ok, is, like, done, server, stateDir, serverEnv } from './tap.mjs';

const state = stateDir();
// Every line is read as bytes and decoded strictly: a line that is not
// UTF-8, or not JSON, is kept in bad().
const strict = new TextDecoder('utf-8', { fatal: true });
function start(extra = {}) {
  const p = spawn(server, [], { env: serverEnv(state, extra), stdio: ['pipe', 'pipe', 'pipe'] });
  let buf = Buffer.alloc(0), waiters = [], lines = [], bad = [], all = [];
  p.stdout.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    let i;
    while ((i = buf.indexOf(10)) >= 0) {
      const raw = buf.subarray(0, i); buf = buf.subarray(i + 1);
      let m; try { m = JSON.parse(strict.decode(raw)); } catch { bad.push(raw.toString('latin1').slice(0, 300)); continue; }
      lines.push(m); all.push({ m, t: Date.now() });
      const w = waiters.shift(); if (w) w(m);
    }
  });
  const next = (ms = 20000) => new Promise((res, rej) => {
    if (lines.length > waiters.length) { res(lines[lines.length - 1 - waiters.length]); return; }
    const t = setTimeout(() => rej(new Error('no answer')), ms);
    waiters.push((m) => { clearTimeout(t); res(m); });
  });
  const send = (o) => p.stdin.write(Buffer.isBuffer(o) ? Buffer.concat([o, Buffer.from('\n')])
    : (typeof o === 'string' ? o : JSON.stringify(o)) + '\n');
  const ask = async (o) => { lines = []; send(o); return next(); };
  // The first message (with its arrival time) that pred takes, or null after ms.
  const until = async (pred, ms = 20000) => {
    for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
      const hit = all.find((a) => pred(a.m));
      if (hit) return hit;
    }
    return null;
  };
  return { p, send, ask, next, until, all: () => all, bad: () => bad, quiet: async (ms) => { lines = []; await new Promise((r) => setTimeout(r, ms)); return lines.length; } };
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

// A batch is served like its requests one by one: its calls run on their
// own threads and the reader goes on, so a ping or a cancel sent after it
// is served while its runs go on; its answers come as one array.
const tool = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const run = (id, code, extra = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'run_code', arguments: { language: 'bash', code }, ...extra } });
const isBatch = (ids) => (m) => Array.isArray(m) && m.some((a) => ids.includes(a.id));
const wsOf = (a) => a?.result?.structuredContent?.workspace_id;
s = start({ SR_MCP_JOBS: '2' });
await s.ask(init('2025-03-26'));
s.send([run('b1', 'sleep 6; echo one', { _meta: { progressToken: 'tok-b1' } }), run('b2', 'sleep 6; echo two')]);
s.send({ jsonrpc: '2.0', id: 'p1', method: 'ping' });
const ping = await s.until((m) => m.id === 'p1', 5000);
ok(ping?.m.result, 'a ping sent after a batch of runs is answered at once, not after the batch', ping);
let b = await s.until(isBatch(['b1', 'b2']), 30000);
ok(ping && b && b.t - ping.t > 3000, '... the batch answered seconds later, when its runs had ended', ping?.t, b?.t);
ok(b && b.m.length === 2 && b.m.map((a) => a.id).sort().join() === 'b1,b2' &&
   b.m.find((a) => a.id === 'b1').result?.structuredContent?.stdout === 'one\n' &&
   b.m.find((a) => a.id === 'b2').result?.structuredContent?.stdout === 'two\n',
   '... one array holding both answers, each with its id and its own output', b?.m);
const prog = s.all().find((a) => a.m.method === 'notifications/progress' && a.m.params?.progressToken === 'tok-b1');
ok(prog && b && prog.t < b.t, "a batch item's progress is sent as it comes, on a line of its own", prog);
const ws = wsOf(b?.m?.[0]);
s.send([run('c1', 'sleep 2; echo three'), run('c2', 'sleep 20; echo four')]);
await new Promise((res) => setTimeout(res, 1000));
const t0 = Date.now();
s.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c2', reason: 'test' } });
b = await s.until(isBatch(['c1', 'c2']), 12000);
ok(b && b.t - t0 < 10000 && b.m.length === 1 && b.m[0].id === 'c1' && b.m[0].result?.structuredContent?.stdout === 'three\n',
  'a cancel of one batch item: the other completes, the batch answers at once without the cancelled one', b?.m);
r = await s.ask({ jsonrpc: '2.0', id: 'l1', method: 'tools/call', params: { name: 'list_jobs', arguments: {} } });
ok(r.result?.structuredContent?.jobs?.filter((j) => j.state === 'cancelled').length === 1, "... and the cancelled item's job was cancelled", r.result?.structuredContent);
s.send([{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', method: 'notifications/progress', params: {} }]);
is(await s.quiet(500), 0, 'a batch of notifications only: no answer');
// A batch over the in-flight limit (64 calls): the calls past it get the
// error a single call over the limit gets, in the batch's array.
r = await s.ask(tool('r0', 'run_code', { language: 'bash', code: 'sleep 3; echo done', wait_s: 0 }));
const jid = r.result?.structuredContent?.job_id;
ok(jid, 'a run to wait on', r);
if (jid) {
  const waits = Array.from({ length: 66 }, (_, i) => tool(`w${i}`, 'job_status', { job_id: jid, wait_s: 30 }));
  s.send(waits);
  b = await s.until(isBatch(['w0']), 30000);
  const over = (b?.m || []).filter((a) => a.error?.code === -32603 && /serving 64 calls/.test(a.error.message));
  const done = (b?.m || []).filter((a) => a.result?.structuredContent?.stdout === 'done\n');
  ok(b && b.m.length === 66 && over.length === 2 && done.length === 64,
    'a batch of 66 waiting calls: 64 served at once, 2 told the server is busy, in one array', b?.m?.length, over.length, done.length);
}

// Bytes that are not UTF-8 in any field sr-mcp echoes: every line out is
// still UTF-8 and JSON (checked strictly by start()). ~ marks where
// they go: a stray byte, an overlong form, a surrogate, a code point past
// U+10FFFF, a cut sequence, a lone continuation byte, a 5-byte form, ESC,
// a sequence cut by NUL.
const junk = Buffer.from('ff c0 af ed a0 80 f4 90 80 80 e2 82 21 80 fe f8 88 80 80 80 1b 41 c3 00'.replace(/ /g, ''), 'hex');
const withJunk = (o) => {
  const parts = JSON.stringify(o).split('~');
  return Buffer.concat(parts.flatMap((p, i) => (i ? [junk, Buffer.from(p)] : [Buffer.from(p)])));
};
const junked = [
  { jsonrpc: '2.0', id: 'u1', method: 'no/such~method' },
  tool('u2', 'no_such_tool~', {}),
  tool('u3', 'read_file', { workspace_id: 'ws~', path: 'a' }),
  tool('u4', 'read_file', { workspace_id: ws || 'x', path: 'no~such' }),
  tool('u5', 'list_files', { workspace_id: ws || 'x', path: 'no~dir' }),
  tool('u6', 'run_code', { language: 'bash~', code: 'true' }),
  tool('u7', 'run_code', { language: 'bash', code: 'true', env: { 'K~': 'v' } }),
  tool('u8', 'run_code', { language: 'bash', code: 'true', '~': 1 }),
  tool('u9', 'job_status', { job_id: 'j~' }),
  tool('u10', 'install_packages', { workspace_id: ws || 'x', manager: 'pip', packages: ['pkg~'] }),
  tool('u11', 'delete_path', { workspace_id: ws || 'x', path: '~/x' }),
  tool('u12', 'edit_file', { workspace_id: ws || 'x', path: 'e~', old_string: 'a', new_string: 'b' }),
  { jsonrpc: '2.0', id: 'u13', method: 'resources/read', params: { uri: 'sr://workspaces/~/files/x' } },
  { jsonrpc: '2.0', id: 'u14', method: 'resources/read', params: { uri: 'sr://jobs/~/stdout' } },
  { jsonrpc: '2.0', id: 'u15', method: 'resources/read', params: { uri: 'file:///~' } },
  { jsonrpc: '2.0', id: 'u16', method: 'tasks/get', params: { taskId: 't~' } },
  { jsonrpc: '2.0', id: 'u17', method: 'tools/list', params: { cursor: 'c~' } },
  { jsonrpc: '2.0', id: 'u18', method: 'resources/list', params: { cursor: 'c~' } },
  { jsonrpc: '2.0', id: 'u19', method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2030~' } } },
  { jsonrpc: '2.0', id: 'u20', method: 'logging/setLevel', params: { level: 'x~' } },
  tool('u21', 'run_code', { language: 'bash', code: 'echo "~"; echo "~" >&2; printf "~" > f~' }),
  { jsonrpc: '2.0', id: 'u22', method: 'tools/call', params: { name: 'run_code', arguments: { language: 'bash', code: 'sleep 6' }, _meta: { progressToken: 'p~' } } },
  tool('u23', 'write_file', { workspace_id: 'w~', path: 'x', content: 'y' }),
  tool('u24', 'delete_workspace', { workspace_id: '~' }),
  tool('u25', 'export_workspace', { workspace_id: ws || 'x', host_dir: '/tmp/~' }),
  tool('u26', 'import_files', { workspace_id: ws || 'x', host_path: '/tmp/~' }),
];
for (const o of junked) s.send(withJunk(o));
s.send(withJunk({ jsonrpc: '2.0', id: '~', method: 'ping' }));
s.send(withJunk({ jsonrpc: '2.0', id: 'u0', method: 'ping', params: { '~': '~' } }));
s.send(withJunk([{ jsonrpc: '2.0', id: 'v1', method: 'no~such' }, { jsonrpc: '2.0', id: 'v2', method: 'tools/call', params: { name: 'job_logs', arguments: { job_id: '~' } } }]));
s.send(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":"u99","method":"'), junk]));
const answerBy = Date.now() + 15000;
const answered = async (id) => (await s.until((m) => m.id === id || (Array.isArray(m) && m.some((a) => a.id === id)),
  Math.max(answerBy - Date.now(), 50))) !== null;
const missing = [];
for (const id of [...junked.map((o) => o.id), 'u0', 'v1']) if (!(await answered(id))) missing.push(id);
ok(missing.length === 0, 'every request carrying bytes that are not UTF-8 is answered, on a line that is UTF-8 JSON', missing, s.bad());
const parseErr = await s.until((m) => m.error?.code === -32700, 5000);
ok(parseErr, 'a line cut inside a string with such bytes: -32700, a valid line', s.bad());
const junkProg = await s.until((m) => m.method === 'notifications/progress' && /^p/.test(m.params?.progressToken), 15000);
ok(junkProg && junkProg.m.params.progressToken.includes('\ufffd'), 'a progress token with such bytes: sent with U+FFFD for them', junkProg?.m);
const m1 = (await s.until((m) => m.id === 'u1', 100))?.m;
ok(m1?.error?.message.includes('no/such\ufffd') && m1.error.message.includes('A\ufffd'),
  'a method name with such bytes is echoed with U+FFFD for each ill-formed part', m1);
// Each ill-formed part is one U+FFFD, as a WHATWG decoder (Node's) makes
// it: every lead byte with continuations in and out of its range.
const seqs = [];
for (let lead = 0x80; lead <= 0xff; lead++)
  for (const [b2, b3, b4] of [[0x80, 0x80, 0x80], [0x8f, 0xbf, 0xbf], [0x90, 0x80, 0x41], [0x9f, 0xbf, 0x80], [0xa0, 0x80, 0x80], [0xbf, 0x41, 0x80], [0xc0, 0x80, 0x80], [0x41, 0x80, 0x80]])
    seqs.push(Buffer.from([0x6d, lead, b2, b3, b4, 0x7a]));
for (const [i, q] of seqs.entries())
  s.send(Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":"s${i}","method":"`), q, Buffer.from('"}')]));
const loose = new TextDecoder('utf-8');
const wrong = [], by = Date.now() + 15000;
for (const [i, q] of seqs.entries()) {
  const a = await s.until((m) => m.id === `s${i}`, Math.max(by - Date.now(), 50));
  if (a?.m.error?.message !== `Method not found: ${loose.decode(q)}`) wrong.push([q.toString('hex'), a?.m.error?.message]);
}
ok(wrong.length === 0, `${seqs.length} byte sequences echoed: one U+FFFD for each ill-formed part, as a WHATWG decoder has it`, wrong.slice(0, 5));
is(s.bad().length, 0, 'no line on stdout is anything but UTF-8 JSON');
s.p.stdin.end();
// The end of input with a batch in flight: what has been answered in the
// 2 seconds sr-mcp waits goes out, as for single calls.
s = start({ SR_MCP_JOBS: '2' });
await s.ask(init('2025-03-26'));
s.send([run('e1', 'echo quick'), run('e2', 'sleep 30')]);
await new Promise((res) => setTimeout(res, 300));
s.p.stdin.end();
const closed = await Promise.race([new Promise((res) => s.p.on('close', () => res(true))),
  new Promise((res) => setTimeout(() => res(false), 10000))]);
b = await s.until(isBatch(['e1', 'e2']), 100);
ok(closed && b?.m.length === 1 && b.m[0].id === 'e1' && b.m[0].result?.structuredContent?.stdout === 'quick\n',
  'end of input during a batch: sr-mcp ends, the answers it has are sent', closed, b?.m);
if (!closed) s.p.kill();
// A state directory that cannot be made: sr-mcp ends at start (111), with
// one line saying what to set and nothing on stdout (tests/89-mcp-start.t
// tries the other misconfigurations).
{
  const bad = spawn(server, [], { env: serverEnv('/proc/sr-no-such/state'), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '', errout = '';
  bad.stdout.on('data', (d) => { out += d; });
  bad.stderr.on('data', (d) => { errout += d; });
  bad.stdin.on('error', () => {});
  bad.stdin.end(JSON.stringify(init('2025-11-25')) + '\n');
  const code = await new Promise((res) => bad.on('close', res));
  is(code, 111, 'a state directory that cannot be made: exit 111 at start');
  is(out, '', '... nothing on stdout');
  ok(/^sr-mcp: fatal: unable to make state directory \/proc\/sr-no-such\/state: .*--state-dir or SR_MCP_STATE_DIR\n$/.test(errout),
    '... one line saying what to set', errout);
}
// No user namespaces: sr-mcp says so once, in one line, and runs nothing.
// (An installed layout whose sr-jail fails as it does where the kernel
// refuses unprivileged user namespaces, in the words of sr-jail's own
// line, which sr-mcp passes on.)
{
  const { mkdtempSync, writeFileSync, copyFileSync, symlinkSync, chmodSync, mkdirSync } = await import('node:fs');
  const bin = mkdtempSync(`${process.env.TMPDIR || '/tmp'}/sr-nons.`);
  copyFileSync(server, `${bin}/sr-mcp`); chmodSync(`${bin}/sr-mcp`, 0o755);
  for (const t of ['sr-queue', 'sr-limit', 'sr-exec']) symlinkSync(`${process.env.SR_ROOT}/${t}/${t}`, `${bin}/${t}`);
  writeFileSync(`${bin}/sr-jail`, '#!/bin/sh\necho "sr-jail: fatal: unable to create the namespaces (user, mount, pid): user namespaces are off (user.max_user_namespaces=0); as root: sysctl -w user.max_user_namespaces=15000: No space left on device" >&2\nexit 111\n');
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
  ok(answers.every((a) => /sysctl -w user.max_user_namespaces=15000/.test(a.result?.content?.[0]?.text)),
    '... sr-jail\'s own line, with the command that fixes it', answers);
  ok(!/"ran/.test(out), '... nothing ran');
  is(errout.trim().split('\n').filter((l) => /user namespaces/.test(l)).length, 1, '... said in one line of the log');
}
done();
process.exit();
