// http-tenants.mjs - two tenants of sr-mcp-http at once: bob, given
// alice's ids, can name, list, read, change or cancel nothing of hers.
// Every tool whose arguments include an id (any property named *_id, as
// tools/list gives them, so a new tool is tried too), every resource
// template, and tasks/get, tasks/result, tasks/cancel are tried with
// alice's workspace and job ids; then alice finds all of hers as it was.
// Control: alice's second session, with the same ids, reaches them all.
import { ok, is, done, sc, text } from './tap.mjs';
import { startGateway, connect, tokens } from './http-lib.mjs';

const SECRET = 'SECRET-of-alice-7f3a';
const gw = await startGateway();
const [alice, bob, alice2] = await Promise.all([connect(gw, 'alice'), connect(gw, 'bob'), connect(gw, 'alice', 'another-client')]);

// alice's things: a workspace with a file, a finished job, a running job.
const made = await alice.callTool({ name: 'run_code', arguments: { language: 'bash',
  code: `echo ${SECRET} > secret.txt; echo ${SECRET}; echo ${SECRET} >&2` } });
const ids = { workspace_id: sc(made).workspace_id, job_id: sc(made).job_id };
const running = sc(await alice.callTool({ name: 'run_code', arguments: { language: 'bash',
  code: `echo ${SECRET}; sleep 60`, workspace_id: ids.workspace_id, wait_s: 0 } })).job_id;
ok(ids.workspace_id && ids.job_id && running, `alice has a workspace, a finished job, a running one: ${JSON.stringify(ids)}`);
// bob works at the same time, in his own workspace.
const bobRun = bob.callTool({ name: 'run_code', arguments: { language: 'bash', code: 'sleep 2; echo bob' } });

// A value for each argument a tool requires, other than ids.
const fill = { language: 'bash', code: 'cat secret.txt', path: 'secret.txt', content: 'written by bob',
  old_string: SECRET, new_string: 'edited by bob', packages: ['six'], manager: 'pip', host_path: '/tmp',
  stream: 'stdout', dest: '.' };
function argsFor(tool, idValues) {
  const props = tool.inputSchema.properties || {}, args = {};
  for (const [k, p] of Object.entries(props)) {
    if (k.endsWith('_id')) args[k] = idValues[k];
    else if ((tool.inputSchema.required || []).includes(k))
      args[k] = fill[k] ?? (p.enum ? p.enum[0] : { string: 'x', integer: 1, number: 1, boolean: false, array: [] }[p.type]);
  }
  return args;
}

// Listings first (bob's tries below may make workspaces of his own under
// names he is given: a tenant's names are its own): nothing of alice's.
for (const name of ['list_jobs', 'list_workspaces']) {
  const r = JSON.stringify(await bob.callTool({ name, arguments: {} }));
  ok(![ids.job_id, running, ids.workspace_id].some((id) => r.includes(id)), `bob's ${name}: none of alice's ids`, r.slice(0, 600));
}
const filesOf = async (c) => JSON.stringify((sc(await c.callTool({ name: 'list_files',
  arguments: { workspace_id: ids.workspace_id, recursive: true } })).entries || []).map((e) => [e.path, e.bytes]));
const before = await filesOf(alice2);

const { tools } = await bob.listTools();
const withIds = tools.filter((t) => Object.keys(t.inputSchema.properties || {}).some((k) => k.endsWith('_id')));
ok(withIds.length >= 10, `tools that take an id: ${withIds.map((t) => t.name).join(' ')}`);
for (const tool of withIds) {
  for (const job of [ids.job_id, running]) {
    const idValues = { ...ids, job_id: job };
    const missing = Object.keys(tool.inputSchema.properties).filter((k) => k.endsWith('_id') && !idValues[k]);
    if (missing.length) {
      ok(false, `${tool.name}: no id of alice's to try for ${missing.join(', ')}; make one in tests/mcp/http-tenants.mjs`);
      break;
    }
    const args = argsFor(tool, idValues);
    const r = await bob.callTool({ name: tool.name, arguments: args }, undefined, { timeout: 60000 }).catch((e) => ({ thrown: String(e) }));
    const s = JSON.stringify(r);
    ok(!s.includes(SECRET),
      `bob's ${tool.name} with alice's ${Object.keys(args).filter((k) => k.endsWith('_id')).join(', ')}: nothing of hers`, s.slice(0, 600));
    if (!('job_id' in tool.inputSchema.properties)) break;
  }
}

// Requests that take an id, on the wire: tasks and resources.
let rawId = 0;
async function raw(tenant, sid, method, params) {
  const res = await fetch(gw.url, { method: 'POST', headers: { Authorization: `Bearer ${tokens[tenant]}`,
    'Content-Type': 'application/json', Accept: 'application/json', 'Mcp-Session-Id': sid, 'Mcp-Protocol-Version': '2025-11-25' },
  body: JSON.stringify({ jsonrpc: '2.0', id: `raw-${++rawId}`, method, params }) });
  return res.json();
}
const bsid = bob.transport.sessionId, asid = alice2.transport.sessionId;
for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
  const taskId = method === 'tasks/result' ? ids.job_id : running;
  const r = await raw('bob', bsid, method, { taskId });
  ok(r.error && !JSON.stringify(r).includes(SECRET), `bob's ${method} of alice's job: an error`, r);
}
const tl = JSON.stringify(await raw('bob', bsid, 'tasks/list', {}));
ok(![ids.job_id, running].some((id) => tl.includes(id)), "bob's tasks/list: none of alice's");
const { resourceTemplates } = await bob.listResourceTemplates();
const uris = resourceTemplates.map((t) => t.uriTemplate.replace('{job_id}', ids.job_id)
  .replace('{workspace_id}', ids.workspace_id).replace(/\{\+?path\}/, 'secret.txt')).filter((u) => !/\{/.test(u));
ok(uris.length >= 2, `resource templates with ids: ${uris.join(' ')}`);
for (const uri of uris) {
  const r = await raw('bob', bsid, 'resources/read', { uri });
  ok(!JSON.stringify(r).includes(SECRET), `bob's resources/read ${uri}: nothing of alice's`, r);
  const c = await raw('alice', asid, 'resources/read', { uri });
  ok(JSON.stringify(c).includes(SECRET), `control: alice's other session reads ${uri}`, c);
}

is(sc(await bobRun).stdout, 'bob\n', "bob's own run, at the same time, is his");
// alice: all of hers as it was, from her other session (control: the ids work).
const rf = await alice2.callTool({ name: 'read_file', arguments: { workspace_id: ids.workspace_id, path: 'secret.txt' } });
ok(text(rf).includes(SECRET), "alice's other session reads her file, unchanged", text(rf));
is(await filesOf(alice2), before, '... nothing added to her workspace, nothing taken');
const js = await alice2.callTool({ name: 'job_status', arguments: { job_id: running, wait_s: 0 } });
is(sc(js).status, 'running', '... her job still runs');
ok(JSON.stringify(js).includes(SECRET), '... and its output is hers to read');
ok(!(await alice2.callTool({ name: 'cancel_job', arguments: { job_id: running } })).isError, '... and hers to cancel');
await Promise.all([alice, bob, alice2].map((c) => c.transport.terminateSession().then(() => c.close())));
await gw.stop();
done();
