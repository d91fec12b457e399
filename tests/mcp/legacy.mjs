// legacy.mjs - sr-mcp driven by the official TypeScript SDK v1 (the
// 2025-11-25 generation Claude Desktop, Cursor and the SDK's default
// speak). callTool validates every structuredContent against the tool's
// outputSchema, so a result that does not fit it fails the test.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, skip, done, diag, server, stateDir, serverEnv, sc, text, sleep, asan } from './tap.mjs';

const state = stateDir();
async function connect(extra = {}) {
  const client = new Client({ name: 'sr-test-legacy', version: '1' });
  const transport = new StdioClientTransport({ command: server, args: [], env: serverEnv(state, extra), stderr: 'pipe' });
  let log = '';
  transport.stderr?.on('data', (d) => { log += d; });
  await client.connect(transport);
  return { client, transport, log: () => log };
}
const T = 120000;
const call = (c, name, args, opts = {}) => c.callTool({ name, arguments: args }, undefined, { timeout: T, ...opts });

const { client, transport } = await connect();
is(client.getServerVersion()?.name, 'sr-mcp', 'initialize: serverInfo names sr-mcp');
ok((client.getInstructions() || '').length > 100 && client.getInstructions().length < 2048,
  'instructions are given, under 2 KB');

// tools/list: names a client accepts, schemas with items on every array.
const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
ok(names.every((n) => /^[a-zA-Z0-9_-]{1,64}$/.test(n)), `tool names match ^[a-zA-Z0-9_-]{1,64}$ (${names})`);
for (const want of ['run_code', 'job_status', 'job_logs', 'cancel_job', 'list_jobs', 'sandbox_info'])
  ok(names.includes(want), `tools/list offers ${want}`);
function arraysHaveItems(s, path = '') {
  if (!s || typeof s !== 'object') return [];
  let bad = [];
  if (s.type === 'array' && !s.items) bad.push(path);
  for (const [k, v] of Object.entries(s)) bad = bad.concat(arraysHaveItems(v, `${path}/${k}`));
  return bad;
}
const noItems = tools.flatMap((t) => arraysHaveItems(t.inputSchema, t.name).concat(arraysHaveItems(t.outputSchema, t.name)));
is(noItems.join(','), '', 'every array in every schema has items');
// read_file alone has no outputSchema, so that clients pass its image blocks through.
ok(tools.every((t) => t.inputSchema?.type === 'object' && (t.outputSchema || t.name === 'read_file')),
  'every tool has an input schema, and an output schema but read_file');
const runCode = tools.find((t) => t.name === 'run_code');
const langs = runCode.inputSchema.properties.language.enum;
ok(['python', 'javascript', 'bash'].every((l) => langs.includes(l)), `language is an enum of the runners (${langs})`);
is(runCode.annotations?.openWorldHint, false, 'run_code: openWorldHint false (no network)');
is(tools.find((t) => t.name === 'job_status').annotations?.readOnlyHint, true, 'job_status is read-only');
is(tools.find((t) => t.name === 'cancel_job').annotations?.destructiveHint, true, 'cancel_job is destructive');

// A long run started now and answered "running" at the default wait_s
// (45 s, under Claude Desktop's 60 s cut); other calls are served meanwhile.
const t0 = Date.now();
const long = call(client, 'run_code', { language: 'bash', code: 'for i in $(seq 50); do echo tick $i; sleep 1; done; echo finished' });

// Each language.
for (const [language, code, want] of [
  ['python', 'import sys\nprint("py", sys.version_info[0])', 'py 3'],
  ['javascript', 'console.log("js", typeof process.version)', 'js string'],
  ['bash', 'echo "sh $((6 * 7))"', 'sh 42'],
]) {
  const r = await call(client, 'run_code', { language, code });
  is(sc(r).stdout?.trim(), want, `${language} runs and prints`);
  is(sc(r).status, 'succeeded', `${language}: status succeeded, isError ${r.isError}`);
  like(text(r), new RegExp(want), `${language}: the text block says the same`);
}

// A ping is answered while the long run waits.
const p0 = Date.now();
await client.ping();
ok(Date.now() - p0 < 2000, `ping answered during a long run (${Date.now() - p0} ms)`);

// State across calls: a workspace keeps files.
const w1 = await call(client, 'run_code', { language: 'python', code: 'open("data.csv","w").write("a,b\\n1,2\\n3,4\\n")\nimport os; print(os.getcwd())' });
const ws = sc(w1).workspace_id;
like(ws, /^ws-[0-9a-f]{12}$/, 'a new workspace is made and its id returned');
is(sc(w1).stdout.trim(), '/workspace', 'the working directory is /workspace');
const w2 = await call(client, 'run_code', { language: 'python', workspace_id: ws,
  code: 'import csv\nrows = list(csv.DictReader(open("data.csv")))\nprint(sum(int(r["b"]) for r in rows))' });
is(sc(w2).stdout.trim(), '6', 'a second call in the workspace reads the file the first wrote');
const w3 = await call(client, 'run_code', { language: 'bash', code: 'ls' });
is(sc(w3).stdout, 'outputs\n', 'a call without workspace_id gets a new workspace, empty but for outputs/ (for images)');
const named = await call(client, 'run_code', { language: 'bash', workspace_id: 'my-analysis', code: 'echo kept > note; pwd' });
is(sc(named).workspace_id, 'my-analysis', 'a workspace may be given a name of the caller');

// stdin, args, env.
const io = await call(client, 'run_code', { language: 'python', stdin: 'from stdin\n', args: ['a b', 'c'], env: { GREETING: 'hello there' },
  code: 'import sys, os\nprint(sys.stdin.read().strip(), sys.argv[1:], os.environ["GREETING"])' });
is(sc(io).stdout.trim(), "from stdin ['a b', 'c'] hello there", 'stdin, args and env reach the program');

// Failures of the code: isError results a model can act on.
const fail = await call(client, 'run_code', { language: 'python', code: 'import sys\nprint("oops", file=sys.stderr)\nsys.exit(3)' });
is(fail.isError, true, 'a non-zero exit is an isError result');
is(sc(fail).status, 'failed', '... status failed');
is(sc(fail).exit_code, 3, '... with its exit code');
is(sc(fail).stderr.trim(), 'oops', '... and its stderr');
const slow = await call(client, 'run_code', { language: 'bash', code: 'echo before; sleep 30', timeout_s: 1 });
is(sc(slow).status, 'timed_out', 'a run past timeout_s: status timed_out');
is(sc(slow).limit_hit, 'timeout', '... limit_hit timeout');
is(sc(slow).stdout.trim(), 'before', '... with the output it made');
like(sc(slow).hint, /timeout_s/, '... and a hint naming timeout_s');
if (asan) {
  skip('a memory balloon under memory_mb 64: status oom', "ASan's shadow memory does not fit under a memory limit");
  skip('... limit_hit memory', 'as above');
} else {
  const mem = await call(client, 'run_code', { language: 'python', memory_mb: 64, code: 'x = []\nwhile True: x.append(bytearray(1 << 20))' });
  is(sc(mem).status, 'oom', 'a memory balloon under memory_mb 64: status oom');
  is(sc(mem).limit_hit, 'memory', '... limit_hit memory');
}
const bomb = await call(client, 'run_code', { language: 'bash', timeout_s: 5, code: 'f() { f | f & }; f; sleep 2; echo survived' });
ok(['timed_out', 'failed', 'succeeded', 'killed'].includes(sc(bomb).status), `a fork bomb is contained and the call returns (${sc(bomb).status}, ${sc(bomb).reason})`);
const after = await call(client, 'run_code', { language: 'bash', code: 'echo still fine' });
is(sc(after).stdout.trim(), 'still fine', '... and the next run works');

// Output: a flood is cut (head and tail), bytes are made safe.
const flood = await call(client, 'run_code', { language: 'bash', code: 'echo FIRST; head -c 5000000 /dev/zero | tr "\\0" x; echo; echo LAST' });
const fs = sc(flood);
ok(fs.stdout.startsWith('FIRST') && fs.stdout.trimEnd().endsWith('LAST'), 'an output flood keeps its head and tail');
ok(fs.stdout_dropped_bytes > 4000000 && fs.stdout_bytes > 5000000, `... and says how much was dropped (${fs.stdout_dropped_bytes} of ${fs.stdout_bytes})`);
ok(JSON.stringify(flood).length < 60000, `... the whole result stays under 60,000 characters (${JSON.stringify(flood).length})`);
like(fs.stdout, /bytes of stdout not shown: job_logs with offset \d+/, '... with a marker telling how to read the rest');
const page = await call(client, 'job_logs', { job_id: fs.job_id, offset: 2000000, limit_bytes: 100 });
is(sc(page).text, 'x'.repeat(100), 'job_logs reads any page of the stored output');
is(sc(page).next_offset, 2000100, '... and gives the next offset');
const accents = sc(await call(client, 'run_code', { language: 'python', code: 'print("é" * 10)' }));
const half = sc(await call(client, 'job_logs', { job_id: accents.job_id, offset: 0, limit_bytes: 3 }));
ok(half.text === 'é' && half.next_offset === 2 && !half.invalid_utf8, 'a page never ends inside a character', half);
const bin = await call(client, 'run_code', { language: 'python', code: 'import sys\nsys.stdout.buffer.write(b"ok \\xff\\xfe end\\n\\x1b[31mred\\x1b[0m\\x07\\n")' });
is(sc(bin).invalid_utf8, true, 'bytes that are not UTF-8 are flagged');
ok(sc(bin).stdout.startsWith('ok \ufffd\ufffd end'), '... and replaced by U+FFFD', sc(bin).stdout);
ok(!sc(bin).stdout.includes('\x1b') && sc(bin).stdout.includes('\u241b[31mred'), 'terminal escapes are neutralised (ESC shown as U+241B)', sc(bin).stdout);

// Progress while a call waits, and none after its answer.
const progress = [];
let answered = false, late = 0;
const pr = await call(client, 'run_code', { language: 'bash', code: 'sleep 7; echo done' },
  { onprogress: (p) => { if (answered) late++; progress.push(p); } });
answered = true;
is(sc(pr).stdout.trim(), 'done', 'a 7 s run with a progress token completes');
ok(progress.length >= 1 && progress.every((p, i) => i === 0 || p.progress > progress[i - 1].progress),
  `notifications/progress came, increasing (${progress.map((p) => p.progress)})`);
like(progress[0]?.message, /running/, '... saying what the job is doing');
await sleep(1500);
is(late, 0, 'no progress notification after the answer');

// Cancellation mid-run kills the job.
const ac = new AbortController();
const cancelled = call(client, 'run_code', { language: 'bash', code: 'echo $$ > pid; sleep 60' }, { signal: ac.signal });
await sleep(1500);
ac.abort();
await cancelled.catch(() => {});
let jobs = [];
for (let i = 0; i < 50; i++) {   // the cancel is asynchronous: look until it shows
  jobs = sc(await call(client, 'list_jobs', { limit: 5 })).jobs;
  if (jobs[0]?.state === 'cancelled') break;
  await sleep(200);
}
is(jobs[0]?.state, 'cancelled', 'notifications/cancelled: the newest job is cancelled');
is(jobs[0]?.language, 'bash', '... list_jobs gives its language');

// cancel_job: a job that has already finished is a plain result that says
// so, with its state (it was an isError "sr-queue cancel failed (exit 1)");
// control: a running job is cancelled; an unknown id is an error.
const fin = sc(await call(client, 'run_code', { language: 'bash', code: 'echo done' }));
const cf = await call(client, 'cancel_job', { job_id: fin.job_id });
ok(!cf.isError && sc(cf).status === 'completed' && /already finished \(completed\)/.test(text(cf)),
  'cancel_job of a finished job: not an error, it says so, with its state', text(cf));
const bgc = sc(await call(client, 'run_code', { language: 'bash', code: 'sleep 60', wait_s: 0 }));
const cr = await call(client, 'cancel_job', { job_id: bgc.job_id });
ok(!cr.isError && sc(cr).status === 'cancelled', 'control: cancel_job of a live job cancels it', text(cr));
const cr2 = await call(client, 'cancel_job', { job_id: bgc.job_id });
ok(!cr2.isError && sc(cr2).status === 'cancelled', '... and a second cancel_job says cancelled', text(cr2));
const cu = await call(client, 'cancel_job', { job_id: 'f'.repeat(16) + '0'.repeat(16) });
ok(cu.isError && /no job f{16}0{16} \(list_jobs/.test(text(cu)), 'cancel_job of an unknown id is an error naming it', text(cu));

// Caps and bad arguments.
const cap = await call(client, 'run_code', { language: 'bash', code: 'true', memory_mb: 100000 });
ok(cap.isError && /cap of \d+ MiB/.test(text(cap)), 'a call over the memory cap is an isError result naming the cap', text(cap));
const capt = await call(client, 'run_code', { language: 'bash', code: 'true', timeout_s: 999999 });
ok(capt.isError && /timeout_s .* cap/.test(text(capt)), 'a call over the timeout cap names it', text(capt));
async function rpcError(p) { try { await p; return null; } catch (e) { return e; } }
const unk = await rpcError(call(client, 'no_such_tool', {}));
is(unk?.code, -32602, 'an unknown tool: -32602');
// A bad argument is an isError result the model reads (input validation
// errors, spec 2025-11-25), not a protocol error.
const badLang = await call(client, 'run_code', { language: 'cobol', code: 'x' });
ok(badLang.isError && /language/.test(text(badLang)) && /python/.test(text(badLang)), 'an unknown language: an isError result listing the languages', text(badLang));
const badId = await call(client, 'job_status', { job_id: '../../etc' });
ok(badId.isError && /job_id/.test(text(badId)), 'a malformed job_id: an isError result naming it', text(badId));
const badMethod = await rpcError(client.request({ method: 'no/such/method', params: {} }, (await import('@modelcontextprotocol/sdk/types.js')).EmptyResultSchema));
is(badMethod?.code, -32601, 'an unknown method: -32601');

// sandbox_info.
const info = sc(await call(client, 'sandbox_info', {}));
ok(info.languages?.some((l) => l.language === 'python' && /^Python 3/.test(l.version)), 'sandbox_info gives the languages and versions');
is(info.network, 'none', 'sandbox_info: network none');

// The long run: answered "running" at wait_s, then job_status until done.
const lr = await long;
const waited = (Date.now() - t0) / 1000;
is(sc(lr).status, 'running', `a 50 s run is answered "running" at the default wait_s (${waited.toFixed(1)} s)`);
ok(waited >= 44 && waited < 55, '... after about 45 s, under the 60 s client cut');
like(sc(lr).hint, /job_status/, '... with a hint to call job_status');
like(sc(lr).stdout, /tick 1\n/, '... and the output so far');
let st = sc(lr), rounds = 0, streamed = sc(lr).stdout;
while (st.status === 'running' && rounds++ < 10) {
  st = sc(await call(client, 'job_status', { job_id: sc(lr).job_id, wait_s: 10, stdout_offset: st.stdout_offset, stderr_offset: st.stderr_offset }));
  streamed += st.stdout;
}
is(st.status, 'succeeded', 'job_status waits until the job is done');
ok(/tick 50\nfinished\n$/.test(streamed) && (streamed.match(/tick 1\n/g) || []).length === 1,
  'job_status with offsets streams only the new output', streamed.slice(-200));

// EOF: the server exits at once; jobs are found again after a restart.
const pid = transport.pid;
const bg = sc(await call(client, 'run_code', { language: 'bash', code: 'sleep 3; echo outlived', wait_s: 0 }));
is(bg.status === 'queued' || bg.status === 'running', true, `wait_s 0 answers at once (${bg.status})`);
const c0 = Date.now();
await client.close();
let alive = true;
for (let i = 0; i < 50 && alive; i++) { try { process.kill(pid, 0); await sleep(50); } catch { alive = false; } }
ok(!alive, `sr-mcp exits on EOF (${Date.now() - c0} ms)`);
const again = await connect();
const found = sc(await call(again.client, 'job_status', { job_id: bg.job_id, wait_s: 15 }));
is(found.status, 'succeeded', 'a restarted sr-mcp finds the earlier job, which ran on');
is(found.stdout.trim(), 'outlived', '... with its output');
// SIGTERM: out at once too.
const pid2 = again.transport.pid;
process.kill(pid2, 'SIGTERM');
alive = true;
for (let i = 0; i < 50 && alive; i++) { try { process.kill(pid2, 0); await sleep(50); } catch { alive = false; } }
ok(!alive, 'sr-mcp exits on SIGTERM');
await again.client.close().catch(() => {});

// Runners: a language is a file; a chain that cannot be set up is said so.
const { mkdtempSync, writeFileSync, chmodSync } = await import('node:fs');
const rdir = mkdtempSync(`${process.env.TMPDIR || '/tmp'}/sr-runners.`);
writeFileSync(`${rdir}/Shell Two!`, '#!/bin/sh\n[ "${1-}" = --version ] && { echo two 2.0; exit; }\n' +
  'exec sr-limit $SR_LIMIT_ARGS sr-jail --bind "$SR_WORKSPACE" /workspace --chdir /workspace --ro-bind "$SR_CODE" /run/c sr-exec sh /run/c "$@"\n');
writeFileSync(`${rdir}/broken`, '#!/bin/sh\nexec sr-limit $SR_LIMIT_ARGS sr-jail --bind /nonexistent-sr-source /x sr-exec true\n');
chmodSync(`${rdir}/Shell Two!`, 0o755); chmodSync(`${rdir}/broken`, 0o755);
const third = await connect({ SR_MCP_RUNNERS: rdir });
const langs2 = (await third.client.listTools()).tools.find((t) => t.name === 'run_code').inputSchema.properties.language.enum;
is(JSON.stringify(langs2), '["broken","shell_two_"]', 'a runner file is a language, its name made safe');
const two = await call(third.client, 'run_code', { language: 'shell_two_', code: 'echo "two: $1"', args: ['x'] });
is(sc(two).stdout, 'two: x\n', '... and runs code');
const broke = await call(third.client, 'run_code', { language: 'broken', code: 'true' });
is(sc(broke).status, 'error', 'a chain that cannot be set up: status error');
is(sc(broke).reason, 'sandbox', '... reason sandbox');
like(sc(broke).error, /^sr-jail: fatal: unable to bind \/nonexistent-sr-source/, '... with the line that says why');
ok(broke.isError && /not a fault of the code/.test(sc(broke).hint), '... an isError result telling the model it is not its code');
await third.client.close();
done();
process.exit();
