// arguments.mjs - every call's arguments are checked against its tool's
// inputSchema before the tool runs: an unknown argument (each tool of
// tools/list, not a hand-picked one), a wrong type of each kind, a value
// outside an enum or a bound, a missing required argument. Each is an
// isError result (input validation errors, spec 2025-11-25 and 2026-07-28)
// naming the argument, the nearest known name and the names the tool
// takes; the same calls with valid arguments are controls that must pass.
// Both generations: the SDK v1 client (2025-11-25) and the v2 client
// pinned to 2026-07-28.
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as Stdio1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as Client2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as Stdio2 } from '@modelcontextprotocol/client/stdio';
import { ok, is, like, done, server, stateDir, serverEnv, sc, text } from './tap.mjs';

const state = stateDir();
const T = { timeout: 120000 };
const c1 = new Client1({ name: 'sr-test-args', version: '1' });
await c1.connect(new Stdio1({ command: server, args: [], env: serverEnv(state), stderr: 'pipe' }));
// A thrown error (a protocol error) becomes a result that is not refused.
const caught = (e) => ({ thrown: e.code, content: [{ type: 'text', text: String(e.message) }] });
const call = (name, args, c = c1) => c.callTool({ name, arguments: args }, undefined, T).catch(caught);
const refused = (r) => r.isError === true && /^Invalid arguments for tool /.test(text(r));
const { tools } = await c1.listTools();
const WS = 'args-ws';

// A job and a workspace with a file, for the tools that take them.
let r = await call('run_code', { language: 'bash', workspace_id: WS, code: 'echo hello > a.txt; echo ran' });
is(sc(r).stdout, 'ran\n', 'setup: a run in the workspace');
const job = sc(r).job_id;
r = await call('run_code', { language: 'bash', code: 'sleep 60', wait_s: 0 });
const long = sc(r).job_id;
ok(long, 'setup: a long job to cancel', text(r));

// Valid arguments for each tool, in an order that works (write, edit, then
// delete). A tool tools/list offers that is missing here fails the test.
const valid = {
  run_code: { language: 'bash', code: 'echo ok', workspace_id: WS, timeout_s: 30, memory_mb: 256, wait_s: 30,
    args: ['x'], env: { A: 'b' }, stdin: '' },
  job_status: { job_id: job, wait_s: 0, stdout_offset: 0, stderr_offset: 0 },
  job_logs: { job_id: job, stream: 'stdout', offset: 0, limit_bytes: 100 },
  cancel_job: { job_id: long },
  list_jobs: { limit: 5, offset: 0 },
  sandbox_info: {},
  list_workspaces: { offset: 0 },
  session_info: { workspace_id: WS },
  restart_session: { workspace_id: WS, language: 'python' },
  close_session: { workspace_id: WS, language: 'python' },
  expose_port: { workspace_id: WS, language: 'python', port: 8000 },
  list_files: { workspace_id: WS, path: '.', recursive: true, include_hidden: false, offset: 0, glob: '*' },
  read_file: { workspace_id: WS, path: 'a.txt', offset_line: 1, limit_lines: 5 },
  write_file: { workspace_id: WS, path: 'b.txt', content: 'x', encoding: 'utf8', append: false },
  edit_file: { workspace_id: WS, path: 'b.txt', old_string: 'x', new_string: 'y', replace_all: false },
  delete_path: { workspace_id: WS, path: 'b.txt' },
  install_packages: { workspace_id: WS, manager: 'pip', packages: ['numpy'], timeout_s: 30, wait_s: 0 },
  export_workspace: { workspace_id: WS },
  import_files: { host_path: '/nonexistent', workspace_id: WS, dest: 'in', extract: false },
  delete_workspace: { workspace_id: 'args-gone' },
};
// These answer isError for reasons of the setup (no network, no host
// directory, no live session): a control only shows they are not refused
// as arguments.
const policy = new Set(['install_packages', 'export_workspace', 'import_files', 'expose_port']);
const order = tools.map((t) => t.name).sort((a, b) => (a === 'delete_workspace') - (b === 'delete_workspace'));
await call('write_file', { workspace_id: 'args-gone', path: 'x', content: 'x' });

for (const name of order) {
  const tool = tools.find((t) => t.name === name);
  const schema = tool.inputSchema;
  if (!ok(valid[name], `${name}: the test has valid arguments for it (add them to tests/mcp/arguments.mjs)`))
    continue;
  is(schema.additionalProperties, false, `${name}: its schema says additionalProperties false`);
  const props = Object.keys(schema.properties || {});
  // The unknown argument first: refused, so the tool does not run.
  r = await call(name, { ...valid[name], zz_not_an_arg: 1 });
  ok(refused(r) && /unknown argument "zz_not_an_arg"/.test(text(r)) && props.every((p) => text(r).includes(p)),
    `${name}: an unknown argument is an isError result naming it and the ${props.length} names it takes`, text(r));
  ok(!sc(r).job_id, `${name}: ... and nothing ran`, r);
  // The control: the same call without it.
  r = await call(name, valid[name]);
  ok(!refused(r) && (policy.has(name) || !r.isError), `${name}: control: valid arguments pass${policy.has(name) ? ' the check' : ''}`, text(r));
  // Each required argument left out.
  for (const k of schema.required || []) {
    const { [k]: _, ...rest } = valid[name];
    r = await call(name, rest);
    ok(refused(r) && new RegExp(`\\b${k} is required`).test(text(r)), `${name}: without ${k}: refused, naming it`, text(r));
  }
}

// The nearest known name, or none.
for (const [tool, bad, near] of [['run_code', 'timeout', 'timeout_s'], ['read_file', 'offset', 'offset_line'],
  ['read_file', 'limit', 'limit_lines'], ['read_file', 'file_path', 'path'], ['run_code', 'memory', 'memory_mb'],
  ['run_code', 'languag', 'language'], ['read_file', 'cwd', null], ['job_logs', 'zzzz', null]]) {
  r = await call(tool, { ...valid[tool], [bad]: 5 });
  const t = text(r);
  ok(refused(r) && (near ? t.includes(`unknown argument "${bad}" (did you mean "${near}"?)`)
    : t.includes(`unknown argument "${bad}" (no known name is close)`)),
  `${tool} {${bad}}: ${near ? `did you mean ${near}` : 'no name is close'}`, t);
}
// run_code {timeout: 5} once ran with the default timeout, without a word.
r = await call('run_code', { language: 'bash', code: 'echo should-not-run', timeout: 5 });
ok(refused(r) && !/should-not-run/.test(JSON.stringify(sc(r))), 'run_code {timeout: 5} does not run', text(r));

// A wrong type of each kind the schemas use, found in tools/list.
const wrong = { string: [5, 'the integer 5'], integer: [1.5, 'the number 1.5'], number: ['5', 'a string ("5")'],
  boolean: ['yes', 'a string ("yes")'], array: ['x', 'a string ("x")'], object: [[], 'an array'] };
const seen = new Set();
for (const tool of tools)
  for (const [k, s] of Object.entries(tool.inputSchema.properties || {})) {
    if (seen.has(s.type) || !wrong[s.type]) continue;
    seen.add(s.type);
    const [v, said] = wrong[s.type];
    r = await call(tool.name, { ...valid[tool.name], [k]: v });
    const an = /^[aeiou]/.test(s.type) ? 'an' : 'a';
    ok(refused(r) && text(r).includes(`${k} must be ${an} ${s.type}, not ${said}`),
      `a ${s.type} (${tool.name} ${k}) given ${said}: refused, saying what it must be`, text(r));
  }
is([...seen].sort().join(','), Object.keys(wrong).sort().join(','), 'every type kind was tried');
r = await call('list_jobs', { limit: '5' });
ok(refused(r) && /limit must be an integer, not a string/.test(text(r)), 'an integer as a string is refused', text(r));
for (const [tool, args, re, what] of [
  ['run_code', { language: 'cobol', code: 'x' }, /language must be one of: .*python.*, not a string \("cobol"\)/, 'a value outside an enum'],
  ['run_code', { language: 'bash', code: 'x', memory_mb: 0 }, /memory_mb must be at least 1, not 0/, 'under a minimum'],
  ['run_code', { language: 'bash', code: 'x', timeout_s: 0 }, /timeout_s must be more than 0, not 0/, 'at an exclusiveMinimum'],
  ['list_jobs', { limit: 501 }, /limit must be at most 500, not 501/, 'over a maximum'],
  ['install_packages', { workspace_id: WS, manager: 'pip', packages: [] }, /packages must hold at least 1/, 'too few items'],
  ['run_code', { language: 'bash', code: 'x', args: ['a', 2] }, /args\[1\] must be a string, not the integer 2/, 'an array item of a wrong type'],
  ['run_code', { language: 'bash', code: 'x', env: { A: true } }, /env\.A must be a string, not true/, 'an object member of a wrong type'],
  ['run_code', { language: 5, code: 'x', timeout: 1 }, /language must be a string.*unknown argument "timeout"/, 'several problems are told at once'],
]) {
  r = await call(tool, args);
  ok(refused(r) && re.test(text(r)), `${what}: refused, saying so`, text(r));
}
// Many unknown arguments: the first ones named, the rest counted.
const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`zz${i}`, i]));
r = await call('sandbox_info', many);
ok(refused(r) && /"zz7"/.test(text(r)) && !/"zz8"/.test(text(r)) && /12 more unknown arguments/.test(text(r)),
  '20 unknown arguments: 8 named, 12 counted', text(r));
// null is taken as absent, as the tools always took it.
r = await call('run_code', { language: 'bash', code: 'echo null-ok', workspace_id: null, stdin: null });
is(sc(r).stdout, 'null-ok\n', 'control: an optional argument given as null is taken as absent');
r = await call('run_code', { language: 'bash', code: null });
ok(refused(r) && /code is required/.test(text(r)), 'a required argument given as null is missing');
await c1.close();

// 2026-07-28: the same, as a result the model reads.
const c2 = new Client2({ name: 'sr-test-args', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
await c2.connect(new Stdio2({ command: server, args: [], env: serverEnv(state), stderr: 'pipe' }));
is(c2.getProtocolEra(), 'modern', '2026-07-28 is negotiated');
const call2 = (name, args) => c2.callTool({ name, arguments: args }, T).catch(caught);
r = await call2('run_code', { language: 'bash', code: 'echo x', timeout: 5 });
ok(refused(r) && /did you mean "timeout_s"/.test(text(r)), '2026-07-28: run_code {timeout} is an isError result suggesting timeout_s', text(r));
r = await call2('read_file', { workspace_id: WS, path: 'a.txt', offset: 1, limit: 1 });
ok(refused(r) && /"offset_line"/.test(text(r)) && /"limit_lines"/.test(text(r)), '2026-07-28: read_file {offset, limit} is refused, suggesting offset_line and limit_lines', text(r));
r = await call2('read_file', { workspace_id: WS, path: 'a.txt', offset_line: 1, limit_lines: 1 });
like(text(r), /hello/, '2026-07-28: control: read_file with its own names reads the file');
r = await call2('list_jobs', { limit: 1.5 });
ok(refused(r) && /limit must be an integer/.test(text(r)), '2026-07-28: a wrong type is refused', text(r));
await c2.close();
done();
