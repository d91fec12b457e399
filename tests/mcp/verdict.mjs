// verdict.mjs - a session call is "timed_out" only when the host saw its
// timeout_s pass: the interpreter's done frame says "interrupted", and the
// code, which runs in the interpreter's process, can find the channel and
// send that frame itself (forged below, with the controls: the frame does
// end the call, and a real timeout is still timed_out).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, done, server, stateDir, serverEnv, sc, text } from './tap.mjs';

const T = { timeout: 120000 };
const client = new Client({ name: 'sr-test-verdict', version: '1' });
await client.connect(new StdioClientTransport({ command: server, args: [], stderr: 'pipe',
  env: serverEnv(stateDir(), {}) }));
const call = (n, args) => client.callTool({ name: n, arguments: args }, undefined, T);
const py = (code, extra = {}) => call('run_code', { language: 'python', workspace_id: 'v', session: true, code, ...extra });

let r = await py('x = 1');
is(sc(r).status, 'succeeded', 'a session', text(r));
const forge = 'import gc, time\nch = next(o for o in gc.get_objects() if type(o).__name__ == "Channel")\n' +
  'ch.send(ch.call, b"d", b"interrupted")\ntime.sleep(2)\n"slept"';
const t0 = Date.now();
r = await py(forge, { timeout_s: 30 });
const took = Date.now() - t0;
ok(took < 25000, `control: the code's own done frame ends the call (after ${took} ms, timeout_s 30)`, text(r));
ok(sc(r).status !== 'timed_out' && sc(r).limit_hit !== 'timeout' && !/interrupted at timeout_s/.test(sc(r).hint || ''),
  'forged: an "interrupted" frame sent by the code, before the timeout: not timed_out', JSON.stringify(sc(r)));
r = await py('x + 1');
is(sc(r).stdout, '2\n', 'the session goes on; the next call gets its own answer');
r = await py('import time\nwhile True: time.sleep(0.1)', { timeout_s: 1 });
is(sc(r).status, 'timed_out', 'control: a real loop past timeout_s is timed_out', text(r));
is(sc(r).limit_hit, 'timeout', 'control: limit_hit timeout');
await client.close();
done();
process.exit();
