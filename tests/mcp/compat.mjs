// compat.mjs - sr-mcp --compat sandrun: Sandrun's tool names and
// parameters over the same runs, through the official SDK v1 client
// (which checks each result against the tool's outputSchema).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, done, server, stateDir, serverEnv } from './tap.mjs';

const state = stateDir();
async function connect(extra) {
  const c = new Client({ name: 'sr-test-compat', version: '1' });
  await c.connect(new StdioClientTransport({ command: server, args: [], env: serverEnv(state, extra), stderr: 'pipe' }));
  return c;
}
const plain = await connect({});
const names = (await plain.listTools()).tools.map((t) => t.name);
ok(!names.includes('execute_python'), 'without --compat the Sandrun names are not offered');
let err;
try { await plain.callTool({ name: 'execute_python', arguments: { code: 'print(1)' } }); } catch (e) { err = e; }
is(err?.code, -32602, '... and calling one is an unknown tool');
await plain.close();

const c = await connect({ SR_MCP_COMPAT: 'sandrun' });
const all = (await c.listTools()).tools.map((t) => t.name);
for (const n of ['execute_python', 'execute_javascript', 'execute_bash', 'check_job_status', 'get_job_logs'])
  ok(all.includes(n), `--compat sandrun offers ${n}`);
const T = { timeout: 60000 };
let r = await c.callTool({ name: 'execute_python', arguments: { code: 'print(sum([1, 2, 3]))' } }, undefined, T);
is(r.structuredContent.stdout, '6\n', 'execute_python {code} runs Python');
r = await c.callTool({ name: 'execute_javascript', arguments: { code: 'console.log([1, 2].length)' } }, undefined, T);
is(r.structuredContent.stdout, '2\n', 'execute_javascript {code} runs Node.js');
r = await c.callTool({ name: 'execute_bash', arguments: { script: 'echo $((2 + 3))' } }, undefined, T);
is(r.structuredContent.stdout, '5\n', 'execute_bash {script} runs Bash');
r = await c.callTool({ name: 'execute_bash', arguments: { script: 'sleep 1; echo later', wait: false } }, undefined, T);
ok(['queued', 'running'].includes(r.structuredContent.status), `wait false answers at once (${r.structuredContent.status})`);
const id = r.structuredContent.job_id;
let st;
for (let i = 0; i < 50; i++) {
  st = (await c.callTool({ name: 'check_job_status', arguments: { job_id: id } }, undefined, T)).structuredContent;
  if (st.status === 'succeeded') break;
  await new Promise((res) => setTimeout(res, 200));
}
is(st.status, 'succeeded', 'check_job_status follows the job');
r = await c.callTool({ name: 'get_job_logs', arguments: { job_id: id } }, undefined, T);
is(r.structuredContent.stdout, 'later\n', 'get_job_logs gives its output');
await c.close();
done();
process.exit();
