// session.js - the interpreter of a JavaScript (Node.js) session of sr-mcp
// (sr-mcp(1), SESSIONS): run by the javascript runner in its session mode,
// inside the same chain as a run (sr-limit, sr-jail, sr-exec, /workspace),
// it runs the code of each call in this process's global context, kept
// for the life of the session: top-level var, let, const, function and
// class declarations, required modules and loaded data stay.
//
// The channel and its frames are srsession.py's (python-lib/):
//   request  "SRQ1 <call> <timeout_ms> <length>\n" + the code
//   answer   "SRR1 <call> <kind> <length>\n" + bytes; kind o (stdout),
//            e (stderr), d (done: ok, error or interrupted)
// What the code writes travels inside o and e frames: it can never end a
// call or pass for another call's answer.
//
// As node's REPL: the value of the last expression is shown
// (util.inspect), undefined is not; top-level await works (node's own
// rewrite, the REPL's); an exception is printed as "Uncaught ..." and the
// session lives on; process.exit() ends the call, not the session. The
// timeout sends SIGINT from a watchdog thread: code running
// synchronously is stopped (vm's breakOnSigint), a pending await
// is given up; code stuck in a blocking call is killed by the host's
// second bound. Output: process.stdout and process.stderr (console too);
// what a child process writes to an inherited fd 1 or 2 goes to the
// interpreter's log, not to the call (pipe it: stdio 'pipe').
'use strict';
const fs = require('fs');
const net = require('net');
const vm = require('vm');
const util = require('util');
const path = require('path');
const { Worker } = require('worker_threads');
const { createRequire } = require('module');

let topLevelAwait = null;
try {   // node --expose-internals: the REPL's rewrite of top-level await
  ({ processTopLevelAwait: topLevelAwait } = require('internal/repl/await'));
} catch (e) { /* without it, await at the top level is a SyntaxError */ }

let timers = null;   // node's timer lists, to see the timers a call leaves
const keysOf = Object.keys;   // as it is before any code runs
try {
  timers = require('internal/timers');
} catch (e) { /* then a call's timers are not looked at */ }

const CHAN = '/run/sr/session';
const HEADER_MAX = 200;
const log = (msg) => fs.writeSync(2, `sr-mcp session: ${msg}\n`);
const exit = process.exit.bind(process);
const outFd = fs.openSync(CHAN + '/out', 'r+');   // out first, as srsession.py
// `in` is opened last, once the threads node starts lazily are there (the
// host takes the interpreter's threads then as its baseline)
let inFd = -1;

function send(call, kind, data) {
  const msg = Buffer.concat([Buffer.from(`SRR1 ${call} ${kind} ${data.length}\n`), data]);
  for (let off = 0; off < msg.length;)
    off += fs.writeSync(outFd, msg, off);
}

let current = null;    // the call going: { id, done }

// process.stdout and process.stderr (and so console) framed for the call
// going; between calls, to the interpreter's log.
function capture(stream, kind) {
  const orig = stream.write.bind(stream);
  stream.write = function (chunk, encoding, cb) {
    if (typeof encoding === 'function') {
      cb = encoding;
      encoding = undefined;
    }
    if (!current)
      return orig(chunk, encoding, cb);
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, encoding || 'utf8') : Buffer.from(chunk);
    send(current.id, kind, buf);
    if (cb)
      process.nextTick(cb);
    return true;
  };
}

// The watchdog: a thread that sends SIGINT at the call's timeout.
const watchdog = new Worker(`
const { parentPort } = require('worker_threads');
let t = null;
parentPort.on('message', (ms) => {
  clearTimeout(t);
  t = ms > 0 ? setTimeout(() => process.kill(process.pid, 'SIGINT'), ms) : null;
});`, { eval: true });

// An error as node's REPL prints it, without the frames of this file.
function printError(e) {
  let text = e instanceof Error && typeof e.stack === 'string' ? e.stack : util.inspect(e);
  const lines = text.split('\n');
  const cut = lines.findIndex((l) => /^\s+at /.test(l) && (l.includes(__filename) ||
    l.includes('node:vm') || l.includes('node:internal')));
  if (cut > 0)
    text = lines.slice(0, cut).join('\n');
  process.stderr.write(`Uncaught ${text}\n`);
}

// The code compiled: as an object literal if it reads as one (REPL), with
// top-level await rewritten when it has one; { script, wrapped }.
function compile(code, name) {
  if (/^\s*\{/.test(code) && /\}\s*;?\s*$/.test(code)) {
    try {
      return { script: new vm.Script(`(${code.replace(/;\s*$/, '')})`, { filename: name }) };
    } catch (e) { /* a block, then */ }
  }
  try {
    return { script: new vm.Script(code, { filename: name }) };
  } catch (e) {
    const rewritten = topLevelAwait && code.includes('await') ? topLevelAwait(code) : null;
    if (!rewritten)
      throw e;
    return { script: new vm.Script(rewritten, { filename: name }), wrapped: true };
  }
}

// The timers and immediates pending now (unref'd ones too): code a call
// left to run later, in this thread, where the host cannot see it. A
// program that means to hide one can (it runs in this very process); this
// catches the timers a program forgot.
function pendingTimers() {
  let n = 0;
  for (const k of keysOf(timers ? timers.timerListMap : {})) {
    const list = timers.timerListMap[k];
    for (let t = list._idleNext; t && t !== list; t = t._idleNext)
      n += t._destroyed ? 0 : 1;
  }
  for (let i = timers ? timers.immediateQueue.head : null; i; i = i._idleNext)
    n += i._destroyed ? 0 : 1;
  return n;
}

function finish(call, status, value) {
  if (current !== call)
    return;
  if (status === 'ok' && value !== undefined)
    process.stdout.write(util.inspect(value) + '\n');
  watchdog.postMessage(0);
  const left = pendingTimers();   // the done frame names them: the host ends the session
  send(call.id, 'd', Buffer.from(left ? `${status} timers=${left}` : status));
  current = null;
  call.done();
}

const interrupted = (e) => e && e.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED';

// process.exit() in a call ends the call, not the session (as SystemExit
// in a Python session): an exception the code cannot mistake for its own.
class SessionExit extends Error {}
process.exit = function (code) {
  if (!current)
    return exit(code);
  const e = new SessionExit('process.exit() ends the call; the session lives on (close_session ends it)');
  e.status = Number(code ?? process.exitCode ?? 0) === 0 ? 'ok' : 'error';
  throw e;
};

// A call's exception: said, and the call ended with the status it gives.
function failed(call, e) {
  if (current !== call)
    return;
  if (e instanceof SessionExit)
    return finish(call, e.status);
  printError(e);
  finish(call, interrupted(e) ? 'interrupted' : 'error');
}

function oneCall(call, timeoutMs, code, n) {
  current = call;
  if (timeoutMs > 0)
    watchdog.postMessage(timeoutMs);
  let result;
  try {
    const c = compile(code, `<cell ${n}>`);
    result = c.script.runInThisContext({ breakOnSigint: true, displayErrors: false });
    if (!c.wrapped)
      return finish(call, 'ok', result);
  } catch (e) {
    return failed(call, e);
  }
  Promise.resolve(result).then((v) => finish(call, 'ok', v && v.value), (e) => failed(call, e));
}

// SIGINT while the code awaits: the call is given up, the session kept.
process.on('SIGINT', () => {
  if (!current)
    return;
  process.stderr.write('Uncaught Error: Script execution was interrupted by `SIGINT` ' +
    '(its timeout_s): what it awaited was given up\n');
  finish(current, 'interrupted');
});
process.on('uncaughtException', (e) => printError(e));
process.on('unhandledRejection', (e) => printError(e));

// Requests, one at a time, parsed from the bytes of `in`.
function serve(idleS) {
  let buf = Buffer.alloc(0), busy = false, n = 0, idle = null;
  const arm = () => {
    clearTimeout(idle);
    if (idleS > 0)
      idle = setTimeout(() => { log(`idle for ${idleS} s: the session ends`); exit(0); },
        idleS * 1000);
  };
  const next = () => {
    if (busy)
      return;
    const nl = buf.subarray(0, HEADER_MAX).indexOf(10);
    if (nl < 0) {
      if (buf.length >= HEADER_MAX)
        malformed();
      return;
    }
    const parts = buf.subarray(0, nl).toString('latin1').split(' ');
    if (parts.length !== 4 || parts[0] !== 'SRQ1' || !/^[0-9a-f]{32}$/.test(parts[1]) ||
        !/^\d+$/.test(parts[2]) || !/^\d+$/.test(parts[3]))
      malformed();
    const len = Number(parts[3]);
    if (buf.length < nl + 1 + len)
      return;
    const code = buf.subarray(nl + 1, nl + 1 + len).toString('utf8');
    buf = buf.subarray(nl + 1 + len);
    busy = true;
    clearTimeout(idle);
    oneCall({ id: parts[1], done: () => { busy = false; arm(); setImmediate(next); } },
      Number(parts[2]), code, ++n);
  };
  const s = new net.Socket({ fd: inFd, readable: true, writable: false });
  s.on('data', (d) => { buf = Buffer.concat([buf, d]); next(); });
  s.on('end', () => exit(0));
  arm();
}

function malformed() {
  log('a malformed request: the session ends');
  exit(3);
}

globalThis.require = createRequire(path.join(process.cwd(), '<session>'));
globalThis.__dirname = process.cwd();
capture(process.stdout, 'o');
capture(process.stderr, 'e');
const idleS = Number(process.env.SR_SESSION_IDLE || 0) || 0;
delete process.env.SR_SESSION_IDLE;
// libuv's thread pool (started by the first asynchronous file call) and
// the watchdog's thread, before `in` is opened
watchdog.once('online', () => {
  watchdog.unref();
  fs.stat('/', () => {
    inFd = fs.openSync(CHAN + '/in', 'r+');
    serve(idleS);
  });
});
