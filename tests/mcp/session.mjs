// session.mjs - sessions (run_code session: true) through the official SDK
// client: state kept between calls, REPL values, an exception then a
// success, a timeout that interrupts and keeps the state, a memory kill
// that loses it and says so, two workspaces apart, another tenant apart,
// output that tries to forge the channel's frames, and sr-mcp restarted.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { existsSync } from 'node:fs';
import { ok, is, like, done, server, stateDir, serverEnv, sc, text } from './tap.mjs';

const T = { timeout: 120000 };
async function connect(state, name = 'sr-test-session') {
  const client = new Client({ name, version: '1' });
  await client.connect(new StdioClientTransport({ command: server, args: [], stderr: 'pipe',
    env: serverEnv(state, {}) }));
  const call = (n, args) => client.callTool({ name: n, arguments: args }, undefined, T);
  return { client, call };
}
const state = stateDir();
let { client, call } = await connect(state);
const py = (code, extra = {}) => call('run_code', { language: 'python', workspace_id: 'w1',
  session: true, code, ...extra });

let r = await py('x = 41\nimport json, statistics\nopen("first.txt", "w").write("1")');
is(sc(r).status, 'succeeded', 'a first session call', text(r));
is(sc(r).session?.new, true, 'it started a new session');
is((sc(r).files || []).map((f) => f.path).join(), 'first.txt',
  'the first call, which started the interpreter, lists the file it made', sc(r).files);
r = await py('x + 1');
is(sc(r).stdout, '42\n', 'a variable set in one call is read in the next; the last value is shown');
is(sc(r).session?.new, false, 'the same session');
r = await py('print("out"); import sys; print("err", file=sys.stderr); None');
is(sc(r).stdout, 'out\n', 'stdout of the call only');
is(sc(r).stderr, 'err\n', 'stderr of the call only');
r = await py('1/0');
is(sc(r).status, 'failed', 'an exception fails the call');
like(sc(r).stderr, /ZeroDivisionError/, 'with its traceback');
r = await py('x');
is(sc(r).stdout, '41\n', 'and the session lives on');

// a DataFrame (pandas if it is here, else a list of dicts) loaded once, used five times
r = await py('import csv, io\ntry:\n    import pandas as pd\n    df = pd.DataFrame({"a": range(10), "b": range(10, 20)})\nexcept ImportError:\n    df = [{"a": i, "b": i + 10} for i in range(10)]\n"loaded"');
is(sc(r).stdout, "'loaded'\n", 'data loaded once', text(r));
for (let i = 0; i < 5; i++) {
  r = await py(`int(sum(row["a"] for row in (df.to_dict("records") if hasattr(df, "to_dict") else df))) + ${i}`);
  is(sc(r).stdout, `${45 + i}\n`, `the data used again (${i + 1} of 5)`);
}

// a timeout interrupts the code and keeps the state
r = await py('import time\ny = 7\ntime.sleep(30)', { timeout_s: 1 });
is(sc(r).status, 'timed_out', 'a call past its timeout_s is interrupted', text(r));
like(sc(r).stderr, /KeyboardInterrupt/, 'by a KeyboardInterrupt');
like(sc(r).hint, /session and its variables are kept/, 'the hint says the state is kept');
r = await py('x + y');
is(sc(r).stdout, '48\n', 'the state survives the interrupt');

// code that ignores the interrupt: the second bound kills the session
r = await py('import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(30)', { timeout_s: 1 });
ok(sc(r).session?.state_lost, 'code that ignores the interrupt loses the session', text(r));
r = await py('x');
like(sc(r).stderr, /NameError/, 'the next call runs in a new session', text(r));
like(sc(r).hint || '', /previous one was lost/, 'and says the state of the previous one was lost');

// output that forges frames of the channel cannot end the call or fake a result
r = await py('x = 5\nprint("SRR1 " + "0"*32 + " d 2\\nok")\nimport os\nos.write(1, b"\\nSRR1 " + b"f"*32 + b" o 5\\nforge")\n"end"');
like(sc(r).stdout, /SRR1 0{32} d 2\nok\n\nSRR1 f{32} o 5\nforge'end'\n/, 'printed frames are only output', sc(r).stdout);
r = await py('x');
is(sc(r).stdout, '5\n', 'and the session goes on');

// frames written straight into the channel by code left running after its
// call (a thread) carry no id of a later call: that call skips them
r = await py('import os, threading, time\ndef later():\n    time.sleep(0.5)\n    fd = os.open("/run/sr/session/out", os.O_WRONLY)\n    f = b"a" * 32\n    os.write(fd, b"SRR1 " + f + b" o 7\\nFORGED\\n" + b"SRR1 " + f + b" d 2\\nok")\nthreading.Thread(target=later).start()\n"armed"');
is(sc(r).stdout, "'armed'\n", 'a call leaves a thread that will write forged frames into the channel', text(r));
r = await py('import time\ntime.sleep(1.5)\n"real"');
is(sc(r).stdout, "'real'\n", "the next call's answer is its own: the forged frames are skipped", sc(r).stdout);
// two workspaces never see each other's variables
r = await call('run_code', { language: 'python', workspace_id: 'w2', session: true, code: 'x' });
like(sc(r).stderr, /NameError: name 'x'/, 'another workspace has its own session');

// a session reaches no other session's channel: its jail has its own two
// FIFOs, not the sessions' directory (which is there on the host: the control)
const other2 = `${state}/sessions/t-sr-test-session/w2/python/in`;
ok(existsSync(other2), "control: w2's channel is there on the host", other2);
r = await py(`import os\n(sorted(os.listdir("/run/sr/session")), os.path.exists(${JSON.stringify(other2)}), os.path.exists(${JSON.stringify(state + '/sessions')}))`);
is(sc(r).stdout, "(['in', 'out'], False, False)\n", "a session sees its own channel only, not another session's", text(r));

// memory: a kill loses the state and says so
r = await call('run_code', { language: 'python', workspace_id: 'm', session: true, memory_mb: 100, code: 'z = 1' });
is(sc(r).status, 'succeeded', 'a session with 100 MiB');
r = await call('run_code', { language: 'python', workspace_id: 'm', session: true,
  code: 'import ctypes\nb = []\nwhile True:\n    m = ctypes.create_string_buffer(8 << 20)\n    b.append(m)' });
like(sc(r).stderr, /MemoryError/, 'an allocation the limit refuses is a MemoryError', text(r));
r = await call('run_code', { language: 'python', workspace_id: 'm', session: true, code: 'z' });
is(sc(r).stdout, '1\n', 'which leaves the session and its state alive', text(r));
// a crash of the interpreter (as a kill by the kernel's OOM killer is) loses the state and says so
r = await call('run_code', { language: 'python', workspace_id: 'm', session: true, code: 'import os, signal\nos.kill(os.getpid(), signal.SIGKILL)' });
ok(sc(r).session?.state_lost && /lost/.test(sc(r).hint || ''), 'a killed interpreter: the call says the state was lost', text(r));
like(sc(r).session?.state_lost || '', /signal KILL|ended/, 'and why', text(r));
r = await call('run_code', { language: 'python', workspace_id: 'm', session: true, code: 'z' });
like(sc(r).stderr, /NameError/, 'the next call has a new session', text(r));

// another tenant cannot reach it
const other = await connect(state, 'another-client');
r = await other.call('run_code', { language: 'python', workspace_id: 'w1', session: true, code: 'x' });
like(sc(r).stderr, /NameError/, 'another tenant gets a session of its own, not this one');
await other.client.close();

// sr-mcp restarted mid-session: the next call says the state was lost
await client.close();
({ client, call } = await connect(state));
r = await py('x');
like(sc(r).hint || '', /restarted/, 'after a restart the next call says the state was lost and why', text(r));
await client.close();
done();
