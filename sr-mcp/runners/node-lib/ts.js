// ts.js - the driver of sr-mcp's typescript runner, bound read-only at
// /run/sr/node/ts.js and run by Node inside the chain: as a script, or,
// where the runner has one, from the start-up snapshot ts-snapshot.js
// made, which holds the compiler loaded and Node.js's types parsed.
//
// It type-checks the code (/run/sr/main.ts) with ts-check.js, prints each
// error as FILE:LINE:COL and its message and exits 1; code that
// type-checks is emitted as an ES module (with an inline source map, so
// that Node's stack traces name the lines of the TypeScript) and run from
// memory by ts-run.js and ts-hooks.mjs under its own name, where its
// imports resolve as they would from /workspace (node_modules, relative
// files, the workspace's .ts files it imports, checked and emitted with it).
//
// The verdict: the runner gives this process the job's verdict file open
// on fd SR_VERDICT_FD (sr-mcp's job.h). A failed check is written there;
// either way the fd is closed before any of the code runs, so the code
// cannot write it. Nothing of the call runs before that: the runner starts
// this process without the call's env (NODE_OPTIONS, LD_PRELOAD would run
// code here first) and binds it at /run/sr/env, which is applied to
// process.env once the fd is closed. In a snapshot nothing of this file
// ran at its making but its definitions: start() reads the fd and the env.
'use strict';
const fs = require('fs');
const url = require('url');
const ENV_FILE = '/run/sr/env';

// The verdict fd, written (a failed check) or not, closed: from here on
// nothing in this process holds the file.
function close_verdict(fd, failed) {
  if (fd < 0)
    return;
  try {
    if (failed)
      fs.writeSync(fd, 'typecheck failed\n');
  } finally {
    fs.closeSync(fd);
  }
}

// The call's env (NUL-separated KEY=VALUE), as sr-jail --env-file would
// have set it; NODE_PATH read again for require.
function apply_env() {
  let raw;
  try {
    raw = fs.readFileSync(ENV_FILE, 'utf8');
  } catch (e) {
    return;
  }
  for (const kv of raw.split('\0')) {
    const eq = kv.indexOf('=');
    if (eq > 0)
      process.env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  require('module')._initPaths();
}

// ts: the compiler; take(): the checker of ts-check.js made at the
// snapshot's making, which it then forgets, or null; lib: ts-check.js.
function start(ts, take, lib) {
  let chk = take();
  const fd = /^[0-9]+$/.test(process.env.SR_VERDICT_FD || '') ? Number(process.env.SR_VERDICT_FD) : -1;
  delete process.env.SR_VERDICT_FD;
  if (!chk || chk.types !== lib.which_types())
    chk = lib.checker(ts, url);
  const r = chk.check(fs.readFileSync(lib.MAIN, 'utf8'));
  if (r.errs) {
    close_verdict(fd, true);
    process.stderr.write(r.text);
    process.exit(1);
  }
  close_verdict(fd, false);
  // The checker's memory is the code's again: what the snapshot held parsed
  // (some 40 MB of heap) collected now, not when the code's heap fills.
  chk = null;
  require('v8').setFlagsFromString('--expose-gc');
  require('vm').runInNewContext('gc')();
  // A snapshot leaves it out (Node.js re-installs it only later): the
  // code's errors would have no stack.
  if (typeof Error.stackTraceLimit !== 'number')
    Error.stackTraceLimit = 10;
  apply_env();
  // Required, not imported: a snapshot's own functions cannot import().
  require('module').createRequire(__filename)('./ts-run.js')(lib.MAIN, lib.AS_IF, r.files);
}

if (require.main === module) {
  const lib = require('./ts-check.js');
  process.argv.splice(1, 1, lib.MAIN);
  start(require(lib.TS_DIR), () => null, lib);
  delete require.cache[require.resolve(lib.TS_DIR)];  // the compiler's memory is the code's again
}
module.exports = { start };
