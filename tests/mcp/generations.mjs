// generations.mjs - what each protocol generation serves, on the wire
// (the SDK clients hide error codes): under 2026-07-28 the methods that
// version removed are not found while the older versions still serve them;
// tasks/* without the io.modelcontextprotocol/tasks extension declared is
// -32021 with the capability named; tasks/list lists tasks, not every job;
// the server's title in both generations.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ok, is, like, done, server, stateDir, serverEnv, sleep } from './tap.mjs';

const state = stateDir();
function start() {
  const p = spawn(server, [], { env: serverEnv(state), stdio: ['pipe', 'pipe', 'inherit'] });
  let nid = 0;
  const waiting = new Map();
  createInterface({ input: p.stdout }).on('line', (line) => {
    const m = JSON.parse(line);
    waiting.get(m.id)?.(m); waiting.delete(m.id);
  });
  const ask = (method, params = {}) => new Promise((res) => {
    const id = ++nid; waiting.set(id, res);
    p.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
  return { p, ask };
}
const EXT = 'io.modelcontextprotocol/tasks';
const modern = (tasks, extra = {}) => ({ ...extra, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [EXT]: {} } } : {} } });
const init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sr-test-gen', version: '1' } };

// 2026-07-28: the methods it removed answer -32601, whatever the order.
const m = start();
const removed = [['ping', {}], ['logging/setLevel', { level: 'info' }], ['initialize', init],
  ['resources/subscribe', { uri: 'sr://jobs' }], ['resources/unsubscribe', { uri: 'sr://jobs' }]];
for (const [method, params] of removed) {
  const r = await m.ask(method, modern(false, params));
  is(r.error?.code, -32601, `2026-07-28: ${method} is not found (-32601)`);
  like(r.error?.message, /2026-07-28/, '... saying it is not part of that version');
}
let r = await m.ask('server/discover', modern(false));
ok(r.result?.supportedVersions?.includes('2026-07-28'), 'server/discover is served');
const titled = (si, desc) => ok(typeof si?.title === 'string' && /\S/.test(si.title) && si.name === 'sr-mcp', desc, si);
titled(r.result?._meta?.['io.modelcontextprotocol/serverInfo'], '2026-07-28: serverInfo in _meta has a title');
r = await m.ask('tools/list', modern(false));
titled(r.result?._meta?.['io.modelcontextprotocol/serverInfo'], '... on every result (tools/list)');

// A real task, made by a request that declares the extension.
r = await m.ask('tools/call', modern(true, { name: 'run_code', arguments: { language: 'bash', code: 'sleep 30', wait_s: 0.2 } }));
is(r.result?.resultType, 'task', 'a declaring client gets a task for a long run');
const tid = r.result?.taskId;
// The same task asked for without the extension: -32021, every tasks/ method.
for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel', 'tasks/result', 'tasks/list']) {
  r = await m.ask(method, modern(false, method === 'tasks/list' ? {} : { taskId: tid }));
  is(r.error?.code, -32021, `2026-07-28 without the extension: ${method} is -32021`);
  ok(r.error?.data?.requiredCapabilities?.extensions?.[EXT] &&
     typeof r.error.data.requiredCapabilities.extensions[EXT] === 'object',
     '... data.requiredCapabilities names the extension', r.error);
  like(r.error?.message, /Missing required client capability.*io\.modelcontextprotocol\/tasks/, '... and the message says what to declare');
}
// Control: declared, the same requests are served.
r = await m.ask('tasks/get', modern(true, { taskId: tid }));
is(r.result?.status, 'working', 'declared: tasks/get is served');
r = await m.ask('tasks/update', modern(true, { taskId: tid, inputResponses: {} }));
ok(r.result && !r.error, 'declared: tasks/update is acknowledged');
r = await m.ask('tasks/list', modern(true));
is(r.error?.code, -32601, 'declared: tasks/list is not in 2026-07-28 (-32601)');
r = await m.ask('tasks/cancel', modern(true, { taskId: tid }));
ok(r.result && !r.error, 'declared: tasks/cancel is acknowledged');
r = await m.ask('tasks/get', modern(true, { taskId: '0'.repeat(32) }));
is(r.error?.code, -32602, 'declared: an unknown task is -32602');
m.p.stdin.end();

// 2025-11-25: the same methods are served; tasks need no client declaration.
const l = start();
r = await l.ask('initialize', init);
is(r.result?.protocolVersion, '2025-11-25', 'legacy: initialize is served');
titled(r.result?.serverInfo, 'legacy: serverInfo has a title');
r = await l.ask('ping');
ok(r.result && !r.error, 'legacy: ping is served');
r = await l.ask('logging/setLevel', { level: 'info' });
ok(r.result && !r.error, 'legacy: logging/setLevel is served');
// tasks/list: the runs made as tasks, not the runs answered in time.
r = await l.ask('tools/call', { name: 'run_code', arguments: { language: 'bash', code: 'echo plain' } });
const plain = r.result?.structuredContent?.job_id;
ok(/^[0-9a-f]{32}$/.test(plain || ''), 'legacy: a plain run has a job', r);
r = await l.ask('tools/call', { name: 'run_code', arguments: { language: 'bash', code: 'echo tasked' }, task: {} });
const task = r.result?.task?.taskId;
ok(/^[0-9a-f]{32}$/.test(task || ''), 'legacy: a run asked as a task is a task', r);
r = await l.ask('tools/call', { name: 'list_jobs', arguments: {} });
const jobs = JSON.stringify(r.result?.structuredContent ?? r.result);
ok(jobs.includes(plain) && jobs.includes(task), 'control: list_jobs shows both jobs');
for (let i = 0; i < 40; i++) {
  r = await l.ask('tasks/get', { taskId: task });
  if (r.result?.status !== 'working') break;
  await sleep(250);
}
r = await l.ask('tasks/list');
const ids = (r.result?.tasks || []).map((t) => t.taskId);
ok(ids.includes(task), 'legacy: tasks/list lists the task', ids);
ok(!ids.includes(plain), 'legacy: tasks/list does not list the plain run', ids);
ok(ids.includes(tid), 'legacy: ... and the task a 2026-07-28 client made', ids);
r = await l.ask('tasks/get', { taskId: task });
is(r.result?.status, 'completed', 'legacy: tasks/get needs no declaration');
// A job that was never made a task is no task: every tasks/ method says so.
for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
  r = await l.ask(method, { taskId: plain });
  is(r.error?.code, -32602, `legacy: ${method} of a plain run's job id is an unknown task (-32602)`);
  like(r.error?.message, /job_status/, '... pointing to job_status');
}
const m2 = start();
r = await m2.ask('tasks/get', modern(true, { taskId: plain }));
is(r.error?.code, -32602, "2026-07-28: tasks/get of a plain run's job id is an unknown task (-32602)");
r = await m2.ask('tasks/cancel', modern(true, { taskId: plain }));
is(r.error?.code, -32602, "2026-07-28: tasks/cancel of a plain run's job id is an unknown task (-32602)");
m2.p.stdin.end();
l.p.stdin.end();
done();
