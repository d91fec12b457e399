// tasks.mjs - MCP tasks, both flavours, over sr-queue jobs: the 2025-11-25
// experimental tasks through the official SDK v1 client's task API, and
// the 2026-07-28 io.modelcontextprotocol/tasks extension on the wire (the
// v2 client has no API for it yet). A task is a job: it outlives sr-mcp.
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, done, server, stateDir, serverEnv, sleep } from './tap.mjs';

const state = stateDir();
const client = new Client({ name: 'sr-test-tasks', version: '1' });
await client.connect(new StdioClientTransport({ command: server, args: [], env: serverEnv(state), stderr: 'pipe' }));
ok(client.getServerCapabilities()?.tasks?.requests?.tools?.call, '2025-11-25: the server declares task-augmented tools/call');
const { tools } = await client.listTools();
is(tools.find((t) => t.name === 'run_code').execution?.taskSupport, 'optional', 'run_code: execution.taskSupport optional');

// callToolStream with a task: created at once, then status, then the result.
const seen = [];
let result;
for await (const m of client.experimental.tasks.callToolStream(
  { name: 'run_code', arguments: { language: 'bash', code: 'sleep 2; echo from a task' } }, undefined,
  { task: { ttl: 60000 }, timeout: 60000 })) {
  seen.push(m.type);
  if (m.type === 'taskCreated') var created = m.task;
  if (m.type === 'result') result = m.result;
  if (m.type === 'error') seen.push(String(m.error));
}
like(created?.taskId, /^[0-9a-f]{32}$/, 'a task is created at once, its id the job id');
is(created?.status, 'working', '... working');
is(seen[0], 'taskCreated', `the stream: ${seen.join(', ')}`);
is(result?.structuredContent?.stdout, 'from a task\n', 'tasks/result gives the run result (valid against the output schema)');
const got = await client.experimental.tasks.getTask(created.taskId);
is(got.status, 'completed', 'tasks/get: completed');
// A failing run is a failed task.
const failing = await client.request({ method: 'tools/call', params: { name: 'run_code', arguments: { language: 'bash', code: 'exit 7' }, task: {} } },
  (await import('@modelcontextprotocol/sdk/types.js')).CreateTaskResultSchema);
const fr = await client.experimental.tasks.getTaskResult(failing.task.taskId,
  (await import('@modelcontextprotocol/sdk/types.js')).CallToolResultSchema);
ok(fr.isError && fr.structuredContent.exit_code === 7, 'tasks/result of a failing run: isError, exit 7');
is((await client.experimental.tasks.getTask(failing.task.taskId)).status, 'failed', '... and the task is failed');
// Cancel a working task; list.
const long = await client.request({ method: 'tools/call', params: { name: 'run_code', arguments: { language: 'bash', code: 'sleep 60' }, task: {} } },
  (await import('@modelcontextprotocol/sdk/types.js')).CreateTaskResultSchema);
const cancelled = await client.experimental.tasks.cancelTask(long.task.taskId);
is(cancelled.status, 'cancelled', 'tasks/cancel: the task and its job are cancelled');
let err;
try { await client.experimental.tasks.cancelTask(long.task.taskId); } catch (e) { err = e; }
is(err?.code, -32602, 'tasks/cancel of an ended task: -32602');
const list = await client.experimental.tasks.listTasks();
ok(list.tasks.some((t) => t.taskId === long.task.taskId && t.status === 'cancelled'), 'tasks/list lists them');
try { await client.experimental.tasks.getTask('0'.repeat(32)); err = null; } catch (e) { err = e; }
is(err?.code, -32602, 'tasks/get of an unknown task: -32602');
await client.close();

// 2026-07-28: the extension on the wire.
const p = spawn(server, [], { env: serverEnv(state), stdio: ['pipe', 'pipe', 'inherit'] });
let buf = '', waiting = new Map();
p.stdout.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const m = JSON.parse(buf.slice(0, i)); buf = buf.slice(i + 1);
    waiting.get(m.id)?.(m); waiting.delete(m.id);
  }
});
let nid = 0;
const meta = (tasks) => ({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { 'io.modelcontextprotocol/tasks': {} } } : {} });
const ask = (method, params, tasks = true) => new Promise((res) => {
  const id = ++nid; waiting.set(id, res);
  p.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta(tasks) } }) + '\n');
});
let r = await ask('server/discover', {});
ok(r.result?.capabilities?.extensions?.['io.modelcontextprotocol/tasks'], '2026-07-28: server/discover declares the tasks extension');
r = await ask('tools/call', { name: 'run_code', arguments: { language: 'bash', code: 'sleep 3; echo modern task', wait_s: 0.5 } });
is(r.result?.resultType, 'task', 'a run still going after wait_s comes back as a task');
ok(/^[0-9a-f]{32}$/.test(r.result?.taskId) && r.result.status === 'working' && 'ttlMs' in r.result, '... with taskId, status working, ttlMs');
const tid = r.result.taskId;
r = await ask('tasks/get', { taskId: tid });
ok(r.result?.status === 'working' && r.result.resultType === 'complete', 'tasks/get: working');
let t;
for (let i = 0; i < 40; i++) { t = (await ask('tasks/get', { taskId: tid })).result; if (t.status !== 'working') break; await sleep(250); }
is(t.status, 'completed', 'tasks/get: completed');
is(t.result?.structuredContent?.stdout, 'modern task\n', '... with the result inline');
r = await ask('tools/call', { name: 'run_code', arguments: { language: 'bash', code: 'sleep 3', wait_s: 0.5 } }, false);
is(r.result?.structuredContent?.status, 'running', 'a client without the extension gets "running", never a task');
r = await ask('tools/call', { name: 'run_code', arguments: { language: 'bash', code: 'sleep 60', wait_s: 0.2 } });
const t2 = r.result.taskId;
r = await ask('tasks/cancel', { taskId: t2 });
ok(r.result && !r.error, 'tasks/cancel is acknowledged');
for (let i = 0; i < 40; i++) { t = (await ask('tasks/get', { taskId: t2 })).result; if (t.status !== 'working') break; await sleep(250); }
is(t.status, 'cancelled', '... and the task is cancelled');
r = await ask('tasks/result', { taskId: tid });
is(r.error?.code, -32601, 'tasks/result is not in 2026-07-28: -32601');
p.stdin.end();

// A task outlives sr-mcp: a new server finds it.
const again = new Client({ name: 'sr-test-tasks', version: '1' });
await again.connect(new StdioClientTransport({ command: server, args: [], env: serverEnv(state), stderr: 'pipe' }));
is((await again.experimental.tasks.getTask(tid)).status, 'completed', 'a restarted sr-mcp finds the task');
await again.close();
done();
process.exit();
