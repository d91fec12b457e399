// session-keep.mjs - a session's interpreter kept from outside (sr-mcp
// --session-keep, HACKING.md Sessions) through the official SDK client:
//  - code that disables the interpreter's own idle exit (Python: its
//    request loop patched; JavaScript: process.reallyExit replaced) still
//    ends at --session-idle, and so does an orphan whose sr-mcp was killed
//    (control: with the keeper stopped, it outlives it);
//  - work a call leaves running cannot write a later call's answer: a
//    thread or a Worker that reads the next call's id (and writes its
//    frames) ends the session; a child process that steals the next
//    request is killed; a timer left pending ends the session (controls:
//    each leftover runs: it writes a file);
//  - the interpreter's CPU is the call's figure, and is charged to the
//    client's --cpu-budget, between calls too (work a look from outside
//    cannot see, left going by a JavaScript call): a client whose session
//    spent its budget has its next plain run held back while another
//    client's waits (control: before, its plain run ran);
//  - a scratch workspace with a live session survives the sweep (control:
//    a plain run's scratch workspace of the same age is swept; once the
//    session has ended, it goes too).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ok, is, like, done, server, stateDir, serverEnv, sc, text, sleep, until, stdioClient } from './tap.mjs';

const connect = (state, name, extra = {}) => stdioClient(Client, StdioClientTransport, state, name, extra, 180000);
const read = (p) => { try { return readFileSync(p, 'utf8'); } catch { return null; } };
// The keeper of the session in dir: the process whose command line is
// sr-mcp --session-keep DIR ...
function keeperOf(dir) {
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    const argv = (read(`/proc/${p}/cmdline`) || '').split('\0');
    if (argv[1] === '--session-keep' && argv[2] === dir) return Number(p);
  }
  return 0;
}
const live = async (call, ws, lang) => ((sc(await call('session_info', { workspace_id: ws })).sessions) || [])
  .some((s) => s.language === lang && s.state === 'live');

// ---- the idle bound, from outside ------------------------------------------------
{
  const state = stateDir();
  const { client, call } = await connect(state, 'sr-keep-idle', { SR_MCP_SESSION_IDLE: '3s' });
  const patches = {
    python: 'import srsession\norig = srsession.Channel.request\n' +
      'srsession.Channel.request = lambda self, idle: orig(self, 0)   # no idle exit\n"patched"',
    javascript: 'process.reallyExit = () => {}   // process.exit() exits no more\n"patched"',
  };
  for (const lang of ['python', 'javascript']) {
    const ws = `idle-${lang}`, dir = join(state, 'sessions', 't-sr-keep-idle', ws, lang);
    let r = await call('run_code', { language: lang, workspace_id: ws, session: true, code: patches[lang] });
    like(sc(r).stdout, /patched/, `${lang}: a call disables the interpreter's own idle exit`, text(r));
    const k = keeperOf(dir);
    ok(k > 0, `${lang}: the interpreter has a keeper on the host (sr-mcp --session-keep)`, dir);
    if (k > 0)            // never 0: that would stop this test's own group
      process.kill(k, 'SIGSTOP');
    await sleep(7000);
    ok(await live(call, ws, lang), `${lang}: control: with its keeper stopped, the patched interpreter outlives --session-idle (3s)`);
    if (k > 0)
      process.kill(k, 'SIGCONT');
    // (sr-mcp itself closes a session idle 60 s past the bound when it
    // next looks: the bound here is below that)
    ok(await until(async () => !(await live(call, ws, lang)), 45),
      `${lang}: its keeper ends it from outside once idle past --session-idle`);
    r = await call('run_code', { language: lang, workspace_id: ws, session: true, code: '1' });
    like(sc(r).session?.previous_state_lost || '', /idle longer than the server's --session-idle.*outside/,
      `${lang}: the next call says the session was idle and ended from outside`, JSON.stringify(sc(r).session));
  }
  // an orphan: sr-mcp killed, its patched session still idles out
  {
    const o = await connect(state, 'sr-keep-orphan', { SR_MCP_SESSION_IDLE: '3s' });
    const r = await o.call('run_code', { language: 'python', workspace_id: 'orphan', session: true, code: patches.python });
    const job = sc(r).session?.interpreter_job_id;
    ok(job && /patched/.test(sc(r).stdout), 'python: a session disables its idle exit, then its sr-mcp is killed', text(r));
    const pid = o.client.transport?.pid || o.client._transport?.pid;
    ok(pid > 0, 'its sr-mcp', pid);
    if (pid > 0)
      process.kill(pid, 'SIGKILL');
    ok(await until(() => existsSync(join(state, 'sessions', 'spool', 'done', job)), 45),
      "the orphaned interpreter still ends at the idle bound (its job is done)");
  }
  // a call longer than the idle bound is not idle
  let r = await call('run_code', { language: 'python', workspace_id: 'long', session: true,
    code: 'import time\ntime.sleep(6)\nx = 1\n"slept"' });
  is(sc(r).stdout, "'slept'\n", 'a call longer than --session-idle runs to its end', text(r));
  r = await call('run_code', { language: 'python', workspace_id: 'long', session: true, code: 'x' });
  is(sc(r).stdout, '1\n', 'and its session lives on', text(r));
  await client.close();
}

// ---- work left running by a call ---------------------------------------------------
{
  const state = stateDir();
  const { client, call } = await connect(state, 'sr-keep-left');
  const wsDir = (ws) => join(state, 'workspaces', ws);
  const py = (ws, code) => call('run_code', { language: 'python', workspace_id: ws, session: true, code });
  const js = (ws, code) => call('run_code', { language: 'javascript', workspace_id: ws, session: true, code });

  // a thread that finds the channel in the interpreter's memory and answers the next call
  let r = await py('pt', 'import gc, os, threading, time, srsession\n' +
    'chan = next(o for o in gc.get_objects() if isinstance(o, srsession.Channel))\n' +
    'def forge():\n    first = chan.call\n    open("/workspace/alive", "w").write(first)\n' +
    '    while True:\n        cur = chan.call\n        if cur and cur != first:\n' +
    '            os.write(chan.out, b"SRR1 %s o 7\\nFORGED\\nSRR1 %s d 2\\nok" % (cur.encode(), cur.encode()))\n' +
    '            open("/workspace/forged", "w").write(cur)\n            return\n        time.sleep(0.001)\n' +
    'threading.Thread(target=forge, daemon=True).start()\ntime.sleep(0.2)\n"armed"');
  is(sc(r).stdout, "'armed'\n", 'python: a call leaves a thread that waits for the next call\'s id', text(r));
  ok(read(join(wsDir('pt'), 'alive')), 'control: the thread runs, and has found the channel');
  like(sc(r).session?.ended || '', /left 1 thread running.*ended from outside/, 'the call says the session was ended for the thread it left', JSON.stringify(sc(r).session));
  like(sc(r).hint || '', /thread\.join\(\)/, 'and says what to do');
  r = await py('pt', 'import time\ntime.sleep(0.5)   # time for a forger to answer first\n"real"');
  is(sc(r).stdout, "'real'\n", "python: the next call's answer is its own", text(r));
  ok(!existsSync(join(wsDir('pt'), 'forged')), 'the thread never wrote it');

  // a thread put in the place of one of the interpreter's own (its output
  // pump ended): as many threads as before, but not the same ones
  r = await py('pw', 'import gc, os, threading, time, srsession\n' +
    'pump = next(o for o in gc.get_objects() if isinstance(o, srsession.Pump))\n' +
    'pump.flush = lambda: None\nos.close(pump.wake_r)   # its next select fails: the pump thread ends\n' +
    'os.write(1, b"wake")\npump.join(5)\n' +
    'threading.Thread(target=lambda: time.sleep(60), daemon=True).start()\n' +
    '# the threads, but the timer of this call\'s timeout_s (it ends with the call)\n' +
    'n = len(os.listdir("/proc/self/task")) - sum(isinstance(t, threading.Timer) for t in threading.enumerate())\n' +
    'open("/workspace/count", "w").write(str(n))');
  const base = read(join(state, 'sessions', 't-sr-keep-left', 'pw', 'python', `base-${sc(r).session?.interpreter_job_id}`)) || '';
  is(read(join(wsDir('pw'), 'count')), String((base.match(/^T /gm) || []).length),
    'control: the interpreter runs as many threads as when it started', base);
  like(sc(r).session?.ended || '', /left 1 thread running/, 'a thread in place of one of its own is seen, and ends the session', JSON.stringify(sc(r).session));

  // a child process that steals the next request from the channel and answers it
  r = await py('pc', 'import os\nx = 5\nif os.fork() == 0:\n    open("/workspace/alive", "w").write("child")\n' +
    '    fd = os.open("/run/sr/session/in", os.O_RDONLY)\n    req = os.read(fd, 200)\n' +
    '    cid = req.split(b" ")[1]\n    out = os.open("/run/sr/session/out", os.O_WRONLY)\n' +
    '    os.write(out, b"SRR1 " + cid + b" o 7\\nFORGED\\nSRR1 " + cid + b" d 2\\nok")\n' +
    '    open("/workspace/forged", "w").write("x")\n    os._exit(0)\nimport time\ntime.sleep(0.3)\n"forked"');
  is(sc(r).stdout, "'forked'\n", 'python: a call leaves a child that waits for the next request', text(r));
  ok(read(join(wsDir('pc'), 'alive')), 'control: the child runs');
  ok(sc(r).session?.processes_killed >= 1 && /left 1 process running: killed/.test(sc(r).stderr),
    'the call says the process it left was killed', JSON.stringify(sc(r)));
  r = await py('pc', 'x');
  is(sc(r).stdout, '5\n', "python: the next call's answer is its own, in the same session", text(r));
  ok(!existsSync(join(wsDir('pc'), 'forged')), 'the child never answered');

  // a signal timer that runs code between calls
  r = await py('ps', 'import signal\nsignal.signal(signal.SIGALRM, lambda *a: open("/workspace/alive", "a").write("t"))\n' +
    'signal.setitimer(signal.ITIMER_REAL, 0.05, 0.05)\nimport time\ntime.sleep(0.3)\n"armed"');
  ok(read(join(wsDir('ps'), 'alive')), 'control: a signal timer\'s handler runs');
  like(sc(r).session?.ended || '', /handler of signal 14/, 'python: a timer left armed ends the session', JSON.stringify(sc(r).session));

  // a Worker thread that steals the next request
  r = await js('jw', 'const { Worker } = require("worker_threads")\nnew Worker(`const fs = require("fs")\n' +
    'fs.writeFileSync("/workspace/alive", "w")\nconst fd = fs.openSync("/run/sr/session/in", "r")\n' +
    'const b = Buffer.alloc(200), n = fs.readSync(fd, b)\nconst id = b.toString("latin1", 0, n).split(" ")[1]\n' +
    'fs.writeSync(fs.openSync("/run/sr/session/out", "w"), "SRR1 " + id + " o 7\\\\nFORGED\\\\nSRR1 " + id + " d 2\\\\nok")\n' +
    'fs.writeFileSync("/workspace/forged", "w")`, { eval: true })\nawait new Promise((r) => setTimeout(r, 500))\n"armed"');
  like(sc(r).stdout, /armed/, 'javascript: a call leaves a Worker that waits for the next request', text(r));
  ok(read(join(wsDir('jw'), 'alive')), 'control: the Worker runs');
  like(sc(r).session?.ended || '', /thread/, 'the call says the session was ended for it', JSON.stringify(sc(r).session));
  r = await js('jw', '"real"');
  is(sc(r).stdout, "'real'\n", "javascript: the next call's answer is its own", text(r));
  ok(!existsSync(join(wsDir('jw'), 'forged')), 'the Worker never wrote it');

  // a timer left pending in the event loop
  r = await js('jt', 'const fs = require("fs")\nsetInterval(() => fs.appendFileSync("/workspace/alive", "t"), 20)\n' +
    'await new Promise((r) => setTimeout(r, 200))\n"armed"');
  ok(read(join(wsDir('jt'), 'alive')), 'control: the interval runs');
  like(sc(r).session?.ended || '', /timer/, 'javascript: a timer left pending ends the session', JSON.stringify(sc(r).session));
  r = await js('jt', 'typeof fs');
  is(sc(r).stdout, "'undefined'\n", 'the next call runs in a new session', text(r));
  // a child process left running is killed, the session kept
  r = await js('jc', 'const k = 3\nrequire("child_process").spawn("sleep", ["60"])\n"spawned"');
  ok(sc(r).session?.processes_killed >= 1 && !sc(r).session?.ended, 'javascript: a child left running is killed, the session kept', JSON.stringify(sc(r).session));
  r = await js('jc', 'k');
  is(sc(r).stdout, '3\n', 'and the state is there', text(r));

  // variants that leave nothing: a thread joined, a child waited for, a timer cleared
  r = await py('ok', 'import threading, subprocess\nt = threading.Thread(target=lambda: None)\nt.start()\nt.join()\n' +
    'subprocess.run(["true"])\ny = 2\n"clean"');
  ok(!sc(r).session?.ended && !sc(r).session?.processes_killed, 'python: a joined thread and a waited-for child leave nothing', JSON.stringify(sc(r)));
  r = await js('ok', 'const t = setInterval(() => {}, 10)\nclearInterval(t)\nawait new Promise((r) => setTimeout(r, 20))\n' +
    'await require("fs").promises.readFile("/etc/hostname").catch(() => 0)\nconst z = 4\n"clean"');
  ok(!sc(r).session?.ended, 'javascript: a cleared timer and an fs promise leave nothing', JSON.stringify(sc(r)));
  r = await js('ok', 'z');
  is(sc(r).stdout, '4\n', 'and the session lives on', text(r));
  await client.close();
}

// ---- CPU: the call's figure, and the client's budget -----------------------------
{
  const state = stateDir();
  const a = await connect(state, 'sr-keep-a', { SR_MCP_CPU_BUDGET: '2s/1h', SR_MCP_JOBS: '1' });
  const b = await connect(state, 'sr-keep-b', { SR_MCP_CPU_BUDGET: '2s/1h', SR_MCP_JOBS: '1' });
  let r = await a.call('run_code', { language: 'python', workspace_id: 'cpu', session: true,
    code: 'import time\nt = time.process_time()\nwhile time.process_time() - t < 0.5: pass\n"burnt"' });
  ok(sc(r).cpu_ms >= 400, "a call's cpu_ms is the interpreter's CPU during it", `cpu_ms ${sc(r).cpu_ms}`);
  ok(sc(r).session?.cpu_charged_ms >= 400, 'and it is charged to the client', JSON.stringify(sc(r).session));
  // a plotting cell (what was reported as "cpu 1 ms" for 725 ms of it),
  // or a busy loop where matplotlib is not there: the figure is the cell's
  r = await a.call('run_code', { language: 'python', workspace_id: 'cpu', session: true,
    code: 'import time\nt = time.process_time()\ntry:\n    import matplotlib\n    matplotlib.use("Agg")\n' +
      '    import matplotlib.pyplot as plt\n    while time.process_time() - t < 0.7:\n' +
      '        fig = plt.figure(); plt.plot(range(2000)); fig.canvas.draw(); plt.close(fig)\n' +
      '    what = "plotting"\nexcept ImportError:\n    while time.process_time() - t < 0.7: pass\n' +
      '    what = "busy"\nprint(what, round((time.process_time() - t) * 1000))' });
  const [what, spent] = String(sc(r).stdout).trim().split(' ');
  const said = Number((text(r).match(/cpu (\d+) ms/) || [])[1]);
  ok(Number(spent) >= 700 && sc(r).cpu_ms >= Number(spent) * 0.9 && said >= Number(spent) * 0.9,
    `a ${what} cell of ${spent} ms of CPU reports about that (cpu_ms ${sc(r).cpu_ms}, text "cpu ${said} ms")`, text(r));
  r = await a.call('run_code', { language: 'bash', workspace_id: 'cpu', code: 'echo ran' });
  is(sc(r).stdout, 'ran\n', 'control: within its budget, the client\'s plain run runs', text(r));
  // a thread that spins past the budget: charged with the call
  r = await a.call('run_code', { language: 'python', workspace_id: 'cpu', session: true,
    code: 'import threading, time\nspun = [0.0]\ndef spin():\n    while True:\n        for _ in range(20000): pass\n' +
      '        spun[0] = time.thread_time()\nthreading.Thread(target=spin, daemon=True).start()\n' +
      'while spun[0] < 1.6: time.sleep(0.05)\nprint(spun[0])' });
  const spun = Number(sc(r).stdout);
  ok(spun >= 1.6 && sc(r).session?.cpu_charged_ms >= spun * 1000 - 50,
    "a session thread's CPU is charged to the client's budget", `spun ${spun}, ${JSON.stringify(sc(r).session)}`);
  // one slot, taken by b: a's next run and b's wait; once it is free, b's
  // goes first, and a's says it was held back for the budget its session spent
  const block = sc(await b.call('run_code', { language: 'bash', workspace_id: 'other', code: 'exec sleep 600', wait_s: 0 })).job_id;
  await until(async () => sc(await b.call('job_status', { job_id: block })).status === 'running', 120);
  const held = sc(await a.call('run_code', { language: 'bash', workspace_id: 'cpu', code: 'echo late', wait_s: 0 }));
  const bq = sc(await b.call('run_code', { language: 'bash', workspace_id: 'other', code: 'echo b', wait_s: 0 }));
  await b.call('cancel_job', { job_id: block });
  r = await b.call('job_status', { job_id: bq.job_id, wait_s: 120 });
  is(sc(r).stdout, 'b\n', "another client's run runs", text(r));
  ok(sc(r).queued_reason !== 'budget', 'without being held back', JSON.stringify(sc(r)));
  const st = sc(await a.call('job_status', { job_id: held.job_id, wait_s: 120 }));
  is(st.queued_reason, 'budget', 'while the client whose session spent the budget was held back for it', JSON.stringify(st));
  await a.client.close();
  await b.client.close();
}
{
  // between calls: work the host cannot see from outside (a ping-pong of
  // messages between two sockets of the interpreter, in its own thread)
  // goes on after the call; its CPU is charged to the next call
  const state = stateDir();
  const { client, call } = await connect(state, 'sr-keep-c');
  // (read through the session's view, as read_file does: the workspace's
  // directory has it only when the next call ends)
  const spunNow = async () => Number((text(await call('read_file', { workspace_id: 'bc', path: 'spun' })).match(/^\s*1\t([\d.]+)/) || [])[1] || 0);
  let r = await call('run_code', { language: 'javascript', workspace_id: 'bc', session: true,
    code: 'const net = require("net"), fs = require("fs")\nconst cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }\n' +
      'const spin = (d) => { const e = cpu() + 20; while (cpu() < e); fs.writeFileSync("/workspace/spun", String(cpu())); return d }\n' +
      'const srv = net.createServer((s) => s.on("data", (d) => s.write(spin(d))))\n' +
      'await new Promise((res) => srv.listen("/tmp/pp.sock", res))\n' +
      'const c = net.connect("/tmp/pp.sock")\nc.on("data", (d) => c.write(spin(d)))\nc.write("x")\n' +
      'await new Promise((res) => setTimeout(res, 100))\ncpu()' });
  const atEnd = Number(sc(r).stdout);
  const first = sc(r).session?.cpu_charged_ms || 0;
  ok(atEnd > 0 && !sc(r).session?.ended, 'a call leaves messages going round between two sockets of the interpreter', JSON.stringify(sc(r)));
  ok(await until(async () => (await spunNow()) >= atEnd + 300, 60), 'control: the work goes on after the call', `${atEnd} ${await spunNow()}`);
  const before = await spunNow();
  r = await call('run_code', { language: 'javascript', workspace_id: 'bc', session: true, code: '1' });
  const second = sc(r).session?.cpu_charged_ms || 0;
  ok(second >= 200 && first + second >= before - 50,
    'its CPU between the calls is charged to the next call', `first ${first}, second ${second}, spun ${atEnd} then ${before}`);
  await client.close();
}

// ---- a scratch workspace with a live session -------------------------------------
{
  const state = stateDir();
  const { client, call } = await connect(state, 'sr-keep-scratch', { SR_MCP_SCRATCH_TTL: '2s',
    SR_MCP_SESSION_IDLE: '10s' });
  let r = await call('run_code', { language: 'python', session: true, code: 'v = 9' });
  const sws = sc(r).workspace_id;
  ok(sws && sc(r).workspace_scratch === true, 'a session call without workspace_id: a scratch workspace', JSON.stringify(sc(r)));
  r = await call('run_code', { language: 'bash', code: 'true' });
  const pws = sc(r).workspace_id;
  ok(await until(() => !existsSync(join(state, 'workspaces', pws)), 60), 'control: a plain run\'s scratch workspace is swept');
  await sleep(3000);
  ok(existsSync(join(state, 'workspaces', sws)), 'the scratch workspace of a live session is not', sws);
  ok((sc(await call('session_info', {})).sessions || []).some((x) => x.workspace_id === sws && x.state === 'live'),
    'and its session lives there');
  // (close_session would name it, which keeps it: the session idles out instead)
  ok(await until(() => !existsSync(join(state, 'workspaces', sws)), 90), 'once its session has ended (idle), it is swept too');
  await client.close();
}
done();
