// modern.mjs - sr-mcp driven by the official v2 client (2026-07-28):
// pinned to 2026-07-28, with 'auto' negotiation (server/discover probe),
// and the v2 client's default legacy handshake. Each validates results
// against the tools' outputSchema.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ok, is, like, done, server, stateDir, serverEnv } from './tap.mjs';

const state = stateDir();
async function session(mode) {
  const opts = mode ? { versionNegotiation: { mode } } : {};
  const client = new Client({ name: 'sr-test-modern', version: '1' }, opts);
  await client.connect(new StdioClientTransport({ command: server, args: [], env: serverEnv(state), stderr: 'pipe' }));
  return client;
}
const T = { timeout: 60000 };
for (const [label, mode, era] of [
  ['pinned 2026-07-28', { pin: '2026-07-28' }, 'modern'],
  ['auto negotiation', 'auto', 'modern'],
  ['the v2 default (legacy handshake)', undefined, 'legacy'],
]) {
  const c = await session(mode);
  is(c.getProtocolEra(), era, `${label}: the ${era} era is negotiated`);
  const { tools } = await c.listTools();
  ok(tools.some((t) => t.name === 'run_code'), `${label}: tools/list offers run_code`);
  const r = await c.callTool({ name: 'run_code', arguments: { language: 'python', code: 'print(sum(range(10)))' } }, T);
  is(r.structuredContent?.stdout, '45\n', `${label}: run_code's result passes the client's outputSchema check`);
  const ws = r.structuredContent?.workspace_id;
  const r2 = await c.callTool({ name: 'run_code', arguments: { language: 'javascript', workspace_id: ws,
    code: 'require("fs").writeFileSync("j.txt", "from js"); console.log(require("fs").readdirSync(".").join(","))' } }, T);
  like(r2.structuredContent?.stdout, /j\.txt/, `${label}: a second call works in the same workspace`);
  const st = await c.callTool({ name: 'job_status', arguments: { job_id: r.structuredContent.job_id } }, T);
  is(st.structuredContent?.status, 'succeeded', `${label}: job_status finds the job`);
  await c.close();
}
done();
process.exit();
