// http.mjs - sr-mcp over Streamable HTTP (sr-mcp-http), driven by the
// official SDK's StreamableHTTPClientTransport: initialize, tools/list,
// run_code in each language, a long job through job_status, progress,
// cancellation (the SDK's and cancel_job), an event stream resumed with
// Last-Event-ID, and a session ended by the client leaving no process.
import { ok, is, like, done, sc, text, sleep } from './tap.mjs';
import { startGateway, connect, leftAfter, tokens } from './http-lib.mjs';

const gw = await startGateway();
const client = await connect(gw, 'alice');
is(client.getServerVersion()?.name, 'sr-mcp', 'initialize over HTTP: sr-mcp answers');
const { tools } = await client.listTools();
const run = tools.find((t) => t.name === 'run_code');
ok(run, 'tools/list: run_code is there');

// Each language run_code offers: a program printing 42 in it.
const samples = {
  bash: 'echo $((6 * 7))', python: 'print(6 * 7)', javascript: 'console.log(6 * 7)',
  typescript: 'const n: number = 6 * 7;\nconsole.log(n);',
};
const langs = run.inputSchema.properties.language.enum;
ok(langs.length >= 3, `languages: ${langs.join(' ')}`);
await Promise.all(langs.map(async (language) => {
  if (!samples[language]) return ok(false, `run_code ${language}: no sample program in tests/mcp/http.mjs; add one`);
  const r = await client.callTool({ name: 'run_code', arguments: { language, code: samples[language] } }, undefined, { timeout: 120000 });
  is(sc(r).stdout, '42\n', `run_code ${language} over HTTP`);
}));

// A long job: the call returns running, job_status waits for the end.
const long = await client.callTool({ name: 'run_code',
  arguments: { language: 'bash', code: 'for i in 1 2 3; do echo tick $i; sleep 1; done', wait_s: 0 } });
like(sc(long).status, /^(running|queued)$/, 'a long job: run_code returns running (or queued) with wait_s 0');
const st = await client.callTool({ name: 'job_status', arguments: { job_id: sc(long).job_id, wait_s: 20 } });
is(sc(st).status, 'succeeded', 'job_status waits for it: succeeded');
like(sc(st).stdout, /tick 3/, '... with its output');

// Progress: a call with a progress token gets notifications on its stream.
const prog = [];
const pr = await client.callTool({ name: 'run_code', arguments: { language: 'bash', code: 'echo working; sleep 7; echo end' } },
  undefined, { onprogress: (p) => prog.push(p), timeout: 60000 });
is(sc(pr).status, 'succeeded', 'a 7 s run with a progress token ends');
ok(prog.length >= 1, `... and progress came over HTTP (${prog.length}): ${JSON.stringify(prog[0])}`);

// Cancellation by the SDK: notifications/cancelled reaches sr-mcp, the job ends.
const ac = new AbortController();
const call = client.callTool({ name: 'run_code', arguments: { language: 'bash', code: 'sleep 120' } }, undefined,
  { signal: ac.signal, timeout: 60000 }).catch((e) => e);
await sleep(2000);
ac.abort('the user gave up');
ok((await call) instanceof Error, 'an aborted call is rejected on the client');
let jobs, cancelled;
for (let i = 0; i < 40 && !cancelled; i++) {
  jobs = sc(await client.callTool({ name: 'list_jobs', arguments: {} })).jobs || [];
  cancelled = jobs[0]?.state === 'cancelled' && jobs[0];   // the newest job: the aborted call's
  if (!cancelled) await sleep(250);
}
ok(cancelled, '... and its job is cancelled', jobs);
// cancel_job on a running job.
const r2 = await client.callTool({ name: 'run_code', arguments: { language: 'bash', code: 'sleep 120', wait_s: 0 } });
const c2 = await client.callTool({ name: 'cancel_job', arguments: { job_id: sc(r2).job_id } });
ok(!c2.isError, 'cancel_job over HTTP', text(c2));
const s2 = await client.callTool({ name: 'job_status', arguments: { job_id: sc(r2).job_id, wait_s: 10 } });
is(sc(s2).status, 'cancelled', '... the job is cancelled');

// Resumption: a POST's event stream cut after its first event, the rest
// asked for with GET and Last-Event-ID.
const sid = client.transport.sessionId;
const hdrs = { Authorization: `Bearer ${tokens.alice}`, 'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-11-25' };
const ac2 = new AbortController();
const res = await fetch(gw.url, { method: 'POST', headers: hdrs, signal: ac2.signal, body: JSON.stringify({ jsonrpc: '2.0', id: 'r1',
  method: 'tools/call', params: { name: 'run_code', arguments: { language: 'bash', code: 'echo a; sleep 6; echo b' }, _meta: { progressToken: 'p1' } } }) });
const reader = res.body.getReader();
let first = '';
while (!/^id: .*\n(.*\n)*?\n/m.test(first)) first += new TextDecoder().decode((await reader.read()).value);   // past keepalives
const lastId = /^id: (\S+)/m.exec(first)?.[1];
like(first, /notifications\/progress/, 'a POST stream: its first event is progress');
ac2.abort();
const rest = await fetch(gw.url, { headers: { ...hdrs, Accept: 'text/event-stream', 'Last-Event-ID': lastId } });
const restText = await rest.text();
like(restText, /"id":"r1".*"stdout":"a\\nb\\n"/s, 'GET with Last-Event-ID gives the rest: the answer');
ok(!restText.includes(`id: ${lastId}\n`), '... and not the event already seen');

// The end of a session: DELETE, then 404, and no process of it is left.
const pgids = gw.starts();
await client.transport.terminateSession();
const after = await fetch(gw.url, { method: 'POST', headers: hdrs, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }) });
is(after.status, 404, 'after DELETE the session is 404');
is(await leftAfter(pgids), '', 'no process of the ended session is left');
await client.close();
await gw.stop();
done();
