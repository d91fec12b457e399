// http-stateless.mjs - 2026-07-28 over sr-mcp-http, with the official v2
// client pinned to that version: each request is stateless, served by an
// sr-mcp of its own that ends after the answer. Closing a request's
// response stream (the client's AbortSignal: how this generation cancels)
// cancels its job: the run ends, long before its timeout. Controls: the
// same call answered (its stream ended by the server) leaves its job
// running; a 2025 session's stream closed by its client does not cancel.
// A session (run_code session: true) belongs to the tenant and workspace,
// not to the request's sr-mcp: the next request's call finds it.
// After many stateless requests the front's log holds nothing alarming
// (the per-request sr-mcp's sweep and sandbox probe are not killed
// half-way), each of their processes is gone, and the sweep did run.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ok, is, done, sleep, sc } from './tap.mjs';
import { startGateway, tokens, session, inGroups } from './http-lib.mjs';

const gw = await startGateway();
const client = new Client({ name: 'sr-test-stateless', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
await client.connect(new StreamableHTTPClientTransport(new URL(gw.url),
  { requestInit: { headers: { Authorization: `Bearer ${tokens.alice}` } } }));
is(client.getProtocolEra(), 'modern', 'the v2 client, pinned: 2026-07-28 over sr-mcp-http');

// The processes whose command line holds this word (the runs' own sleeps).
// The runs sleep a number of seconds of this test's own (300 or more:
// their timeout_s, 300, ends them otherwise), so that no other run's
// sleep is taken for theirs; whatever is left is killed at the end.
const base = 300 + (process.pid % 20000) * 3;
const [S1, S2, S3] = [String(base), String(base + 1), String(base + 2)];
// (cmdline is read only of processes named sleep: reading another's may
// wait on its memory, which a loaded machine's other tests may hold)
const running = (word) => readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
  try {
    return readFileSync(`/proc/${p}/comm`, 'utf8') === 'sleep\n'
      && readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').includes(word);
  } catch { return false; }
});
const until = async (f, ms) => {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(200)) if (f()) return true;
  return f();
};
const run = (code, opts = {}, wait = 40) => client.callTool({ name: 'run_code',
  arguments: { language: 'bash', code, wait_s: wait, timeout_s: 300 } }, { timeout: 120000, ...opts });

// ---- cancel: the client aborts, its stream closes, the job ends -------------------
const ac = new AbortController();
const call = run(`sleep ${S1}`, { signal: ac.signal });
ok(await until(() => running(S1).length > 0, 60000), `a stateless run_code (sleep ${S1}, timeout_s 300) runs`);
const starts = gw.starts().length;
ac.abort();
const err = await call.then(() => null, (e) => e);
ok(err, `the client gives up on it (its AbortSignal): ${err && err.message}`);
ok(await until(() => running(S1).length === 0, 60000), '... the response stream closed, the run is ended: its job was cancelled (not left to its 300 s timeout)');
is(gw.starts().length, starts, '... and no sr-mcp was started for it (the request\'s own was told)');

// ---- control: answered (the server ends the stream), the job goes on ---------------
const r = await run(`sleep ${S2}`, {}, 1);
is(sc(r).status, 'running', 'control: the same call answered after wait_s 1: "running"');
await sleep(2000);
ok(running(S2).length > 0, '... its run goes on after its stream ended with the answer');
const c = await client.callTool({ name: 'cancel_job', arguments: { job_id: sc(r).job_id } });
ok(!c.isError && await until(() => running(S2).length === 0, 60000), '... until cancel_job');

// ---- control: a 2025 session's stream closed by its client does not cancel --------
const sid = await session(gw, 'alice');
const ab = new AbortController();
const legacy = fetch(gw.url, { method: 'POST', signal: ab.signal, headers: { Authorization: `Bearer ${tokens.alice}`,
  'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sid },
  body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call',
    params: { name: 'run_code', arguments: { language: 'bash', code: `sleep ${S3}`, wait_s: 40 } } }) }).catch(() => null);
ok(await until(() => running(S3).length > 0, 60000), `control: a 2025 session's run_code (sleep ${S3}) runs`);
ab.abort();
await legacy;
await sleep(3000);
ok(running(S3).length > 0, '... its client closed the stream: the run goes on (2025: a disconnect is no cancel)');

// ---- a session over stateless requests: the tenant's, not one request's sr-mcp's ---
const py = (code) => client.callTool({ name: 'run_code', arguments: { language: 'python', code,
  session: true, workspace_id: 'stateless-s', wait_s: 60 } }, { timeout: 120000 });
const p1 = await py('x = 41\nprint("set")');
is(sc(p1).stdout, 'set\n', 'a session call over a stateless request: x set');
const atStart = gw.starts().length;
const p2 = await py('print(x + 1)');
is(sc(p2).stdout, '42\n', '... the next stateless request\'s call sees x: the session outlived the first request\'s sr-mcp');
ok(gw.starts().length > atStart, '... though that request had an sr-mcp of its own');
is(sc(p2).session && sc(p2).session.interpreter_job_id, sc(p1).session && sc(p1).session.interpreter_job_id,
  '... the same interpreter');
const cs = await client.callTool({ name: 'close_session', arguments: { workspace_id: 'stateless-s', language: 'python' } });
ok(!cs.isError, 'close_session, stateless, closes it');
const p3 = await py('print("x" in dir())');
is(sc(p3).stdout, 'False\n', 'control: after close_session a new interpreter, x gone');
await client.callTool({ name: 'close_session', arguments: { workspace_id: 'stateless-s', language: 'python' } });

// ---- the log: N stateless requests, nothing alarming; every sr-mcp ended -----------
const N = 24, before = gw.starts().length, logAt = gw.log().length;
for (let i = 0; i < N / 3; i++) {
  await client.listTools();
  await run(`echo ${i}`, {}, 10);
  await client.callTool({ name: 'list_files', arguments: { workspace_id: 'stateless' } });
}
const pgids = gw.starts().slice(before);
is(pgids.length, N, `${N} stateless requests: an sr-mcp each`);
await until(() => !inGroups(pgids).length, 60000);
is(inGroups(pgids).join(', '), '', '... each has ended by itself (after its sweep), with every process of it');
const log = gw.log().slice(logAt).split('\n').filter(Boolean);
is(log.join('\n'), '', '... and the front\'s log says nothing of them (no "sandbox cannot run here", no "retention failed")');
const tenantState = join(gw.dir, 'state', 'alice');
ok(existsSync(join(tenantState, '.swept')), '... the retention sweep ran (after an answer; at most once a minute)');
await client.close();
for (const p of [S1, S2, S3].flatMap(running)) try { process.kill(Number(p)); } catch { /* gone */ }
done();
process.exit();
