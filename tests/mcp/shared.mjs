// shared.mjs - two sr-mcp processes on one state directory at once (clients
// start two): runs from both, at the same time, all succeed, each once,
// and each server sees the other's jobs.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, done, server, stateDir, serverEnv } from './tap.mjs';

const state = stateDir();
async function connect(name) {
  const c = new Client({ name, version: '1' });
  await c.connect(new StdioClientTransport({ command: server, args: [], env: serverEnv(state), stderr: 'pipe' }));
  return c;
}
const [a, b] = await Promise.all([connect('client-a'), connect('client-b')]);
const T = { timeout: 90000 };
const runs = [];
for (let i = 0; i < 6; i++)
  for (const [c, who] of [[a, 'a'], [b, 'b']])
    runs.push(c.callTool({ name: 'run_code', arguments: { language: 'bash', workspace_id: 'shared',
      // a file each: with the workspace quota a run's changes land when it
      // ends, and two runs appending to one file would each replace it
      code: `echo ${who}${i} > log.${who}${i}; echo ${who}${i}` } }, undefined, T));
const results = await Promise.all(runs);
is(results.filter((r) => r.structuredContent.status === 'succeeded').length, 12, 'twelve runs from two servers at once all succeed');
const ids = new Set(results.map((r) => r.structuredContent.job_id));
is(ids.size, 12, '... as twelve jobs');
const log = (await a.callTool({ name: 'run_code', arguments: { language: 'bash', workspace_id: 'shared', code: 'cat log.* | sort | tr "\\n" " "' } }, undefined, T)).structuredContent.stdout;
is(log, 'a0 a1 a2 a3 a4 a5 b0 b1 b2 b3 b4 b5 ', 'each ran once, in the one workspace');
const seen = (await b.callTool({ name: 'list_jobs', arguments: { limit: 100 } }, undefined, T)).structuredContent.jobs;
ok(results.every((r) => seen.some((j) => j.job_id === r.structuredContent.job_id)), "each server lists the other's jobs");
await a.close();
await b.close();

// --external-worker: sr-mcp starts no worker; an `sr-queue run` of the
// administrator's serves the spool.
{
  const { execFileSync } = await import('node:child_process');
  const own = stateDir();
  const c = new Client({ name: 'external', version: '1' });
  await c.connect(new StdioClientTransport({ command: server, args: [], env: serverEnv(own, { SR_MCP_WORKER: 'external' }), stderr: 'pipe' }));
  const r = (await c.callTool({ name: 'run_code', arguments: { language: 'bash', code: 'echo served', wait_s: 1 } }, undefined, T)).structuredContent;
  is(r.status, 'queued', 'with an external worker and none running, a run stays queued');
  execFileSync(`${process.env.SR_ROOT}/sr-queue/sr-queue`, ['run', `${own}/spool`, '--once']);
  const st = (await c.callTool({ name: 'job_status', arguments: { job_id: r.job_id, wait_s: 10 } }, undefined, T)).structuredContent;
  is(st.stdout, 'served\n', "... until the administrator's sr-queue run serves it");
  await c.close();
}
done();
process.exit();
