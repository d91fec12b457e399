// ts-snapshot.js - makes the start-up snapshot of sr-mcp's typescript
// runner: `node --snapshot-blob FILE --build-snapshot ts-snapshot.js`, run
// by the runner in a jail of its own that binds the compiler, the types
// and node-lib as a run does, and nothing of the workspace or the call.
// The snapshot holds the compiler loaded, a checker of ts-check.js whose
// lib and @types/node files are parsed and bound (by checking a few lines
// that use them), and ts.js; started from it, Node runs ts.js's start(),
// which checks the code and runs it as ts.js does as a script.
//
// Only Node's builtins can be required here, so the compiler and these
// files are read and run as CommonJS would run them.
'use strict';
const fs = require('fs');
const path = require('path');
const url = require('url');
const v8 = require('v8');

const loaded = {};
function load(file) {
  if (loaded[file])
    return loaded[file].exports;
  const m = loaded[file] = { exports: {} };
  const dir = path.dirname(file);
  const req = (name) => /^\.\.?\//.test(name) ? load(path.resolve(dir, name)) : require(name);
  const body = fs.readFileSync(file, 'utf8');
  // eslint-disable-next-line no-new-func
  new Function('exports', 'require', 'module', '__filename', '__dirname', body)(m.exports, req, m, file, dir);
  return m.exports;
}

const lib = load(`${__dirname}/ts-check.js`);
const ts = load(`${lib.TS_DIR}/lib/typescript.js`);
const driver = load(`${__dirname}/ts.js`);
let chk = lib.checker(ts, url);
const warm = chk.check('import { readFileSync } from "fs";\nimport * as path from "path";\n' +
  'const n: number[] = readFileSync(path.join(process.cwd(), "x"), "utf8").split("\\n").map((l) => l.length);\n' +
  'console.log(n, Buffer.from("x"), new URL("http://x"), setTimeout(() => 1, 1));\n');
if (warm.errs) {
  process.stderr.write(warm.text);
  process.exit(1);
}
// Taken once: then nothing holds the checker but start(), which drops it.
v8.startupSnapshot.setDeserializeMainFunction(() => driver.start(ts, () => {
  const c = chk;
  chk = null;
  return c;
}, lib));
