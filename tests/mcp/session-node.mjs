// session-node.mjs - JavaScript sessions (run_code language javascript,
// session: true) through the official SDK client: state kept between
// calls, values shown as node's REPL shows them, top-level await, an
// exception that keeps the session, a timeout that interrupts synchronous
// code and a pending await and keeps the state, code that blocks past the
// second bound (the session lost and said), forged frames in the output,
// and the javascript session apart from the python one of a workspace.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, done, server, stateDir, serverEnv, sc, text } from './tap.mjs';

const T = { timeout: 120000 };
const client = new Client({ name: 'sr-test-session-node', version: '1' });
await client.connect(new StdioClientTransport({ command: server, args: [], stderr: 'pipe',
  env: serverEnv(stateDir(), {}) }));
const call = (n, args) => client.callTool({ name: n, arguments: args }, undefined, T);
const js = (code, extra = {}) => call('run_code', { language: 'javascript', workspace_id: 'n1',
  session: true, code, ...extra });

let r = await js('let x = 41\nconst fs = require("fs")');
is(sc(r).status, 'succeeded', 'a first javascript session call', text(r));
is(sc(r).stdout, '', 'a declaration shows no value (undefined is not shown)');
is(sc(r).session?.new, true, 'it started a new session');
r = await js('x + 1');
is(sc(r).stdout, '42\n', 'a let of one call is read in the next; the last value is shown');
is(sc(r).session?.new, false, 'the same session');
r = await js('({ a: [1, 2, { b: "s" }], m: new Map([[1, 2]]) })');
is(sc(r).stdout, "{ a: [ 1, 2, { b: 's' } ], m: Map(1) { 1 => 2 } }\n", 'a value as util.inspect shows it');
r = await js('console.log("out"); console.error("err"); typeof fs.readFileSync');
is(sc(r).stdout, "out\n'function'\n", 'stdout of the call, then the value');
is(sc(r).stderr, 'err\n', 'stderr of the call');
r = await js('const y = await new Promise((res) => setTimeout(() => res(x * 2), 50))\ny + 1');
is(sc(r).stdout, '83\n', 'top-level await, and its declaration kept', text(r));
r = await js('y');
is(sc(r).stdout, '82\n', 'in the next call too');
r = await js('throw new TypeError("boom")');
is(sc(r).status, 'failed', 'an exception fails the call');
like(sc(r).stderr, /Uncaught TypeError: boom/, 'it is shown as the REPL shows it');
r = await js('await Promise.reject(new RangeError("rejected"))');
like(sc(r).stderr, /Uncaught RangeError: rejected/, 'a rejected await too');
r = await js('x(');
like(sc(r).stderr, /SyntaxError/, 'a syntax error');
r = await js('x');
is(sc(r).stdout, '41\n', 'and the session lives on');

r = await js('console.log("bye"); process.exit(0); console.log("not reached")');
is(sc(r).status + ' ' + sc(r).stdout, 'succeeded bye\n', 'process.exit(0) ends the call', text(r));
r = await js('process.exit(3)');
is(sc(r).status, 'failed', 'process.exit(3) fails it');
r = await js('x');
is(sc(r).stdout, '41\n', 'and the session lives on', text(r));

// a timeout interrupts synchronous code and keeps the state
r = await js('globalThis.z = 7\nwhile (true) {}', { timeout_s: 1 });
is(sc(r).status, 'timed_out', 'a loop past its timeout_s is interrupted', text(r));
like(sc(r).stderr, /interrupted by `SIGINT`/, 'by SIGINT');
like(sc(r).hint || '', /session and its variables are kept/, 'the hint says the state is kept');
r = await js('x + z');
is(sc(r).stdout, '48\n', 'the state survives the interrupt', text(r));
// and a pending await
r = await js('await new Promise(() => {})', { timeout_s: 1 });
is(sc(r).status, 'timed_out', 'an await past its timeout_s is given up', text(r));
r = await js('x');
is(sc(r).stdout, '41\n', 'the state survives that too');

// output that forges frames of the channel is only output
r = await js('process.stdout.write("SRR1 " + "0".repeat(32) + " d 2\\nok\\n"); "end"');
is(sc(r).stdout, `SRR1 ${'0'.repeat(32)} d 2\nok\n'end'\n`, 'printed frames are only output', sc(r).stdout);
r = await js('x');
is(sc(r).stdout, '41\n', 'and the session goes on');

// the python session of the same workspace is another interpreter
r = await call('run_code', { language: 'python', workspace_id: 'n1', session: true, code: 'x' });
like(sc(r).stderr, /NameError/, 'the python session of the workspace is apart');

// memory: a full heap loses the session, and the call says so
r = await call('run_code', { language: 'javascript', workspace_id: 'nm', session: true, memory_mb: 200, code: 'let k = 1' });
is(sc(r).status, 'succeeded', 'a javascript session with 200 MiB', text(r));
r = await call('run_code', { language: 'javascript', workspace_id: 'nm', session: true,
  code: 'const a = []\nwhile (true) a.push(new Array(1e6).fill(1.5))' });
is(sc(r).status, 'oom', 'a heap past the limit: status oom', text(r));
like(sc(r).session?.state_lost || '', /out of memory/, 'the call says the state was lost for memory', JSON.stringify(sc(r).session));
r = await call('run_code', { language: 'javascript', workspace_id: 'nm', session: true, code: 'typeof k' });
is(sc(r).stdout, "'undefined'\n", 'the next call has a new session', text(r));

// code blocked where SIGINT cannot reach it: the second bound kills the session
r = await js('require("child_process").execFileSync("sleep", ["30"])', { timeout_s: 1 });
ok(sc(r).session?.state_lost, 'a call blocked past the second bound loses the session', text(r));
r = await js('typeof x');
is(sc(r).stdout, "'undefined'\n", 'the next call runs in a new session', text(r));
like(sc(r).hint || '', /previous one was lost/, 'and says the state of the previous one was lost');
await client.close();
done();
