// ts.js - the driver of sr-mcp's typescript runner, bound read-only at
// /run/sr/node/ts.js and run by Node inside the chain.
//
// It type-checks the code (/run/sr/main.ts) with the TypeScript compiler
// (bound at /run/sr/typescript) against ES2022 and node-globals.d.ts beside
// it, prints each error as FILE:LINE:COL and its message and exits 1; code
// that type-checks is emitted as an ES module (with an inline source map,
// so that Node's stack traces name the lines of the TypeScript) and run
// from memory by ts-hooks.mjs under its own name, where its imports resolve
// as they would from /workspace (node_modules, relative files, the
// workspace's .ts files it imports, checked and emitted with it).
//
// The verdict: the runner gives this process the job's verdict file open
// on fd SR_VERDICT_FD (sr-mcp's job.h). A failed check is written there;
// either way the fd is closed before any of the code runs, so the code
// cannot write it. Nothing of the call runs before that: the runner starts
// this process without the call's env (NODE_OPTIONS, LD_PRELOAD would run
// code here first) and binds it at /run/sr/env, which is applied to
// process.env once the fd is closed.
'use strict';
const fs = require('fs');
const Module = require('module');
const url = require('url');
const VERDICT = /^[0-9]+$/.test(process.env.SR_VERDICT_FD || '') ? Number(process.env.SR_VERDICT_FD) : -1;
delete process.env.SR_VERDICT_FD;
const ENV_FILE = '/run/sr/env';

const MAIN = '/run/sr/main.ts';
const AS_IF = '/workspace/main.ts';   // where the code's imports resolve from
const TS_DIR = '/run/sr/typescript';
const GLOBALS = `${__dirname}/node-globals.d.ts`;
const ANY_MODULE = `${__dirname}/any-module.d.ts`;
const TYPES = '/workspace/node_modules/@types';
// Node.js's own types where install_packages put them (npm @types/node;
// 20.x is what TypeScript 4.8 reads), else node-globals.d.ts.
const NODE_TYPES = fs.existsSync(`${TYPES}/node/index.d.ts`);

function options(ts) {
  return {
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.NodeJs, moduleDetection: ts.ModuleDetectionKind.Force,
    lib: ['lib.es2022.d.ts'], types: NODE_TYPES ? ['node'] : [], typeRoots: [TYPES], strict: true, esModuleInterop: true,
    allowSyntheticDefaultImports: true, resolveJsonModule: true, skipLibCheck: true,
    useUnknownInCatchVariables: false, noEmitOnError: true, inlineSourceMap: true, inlineSources: true,
  };
}

// A compiler host that reads the code from memory and resolves its imports
// as if it were in /workspace.
function host(ts, opts, code) {
  const h = ts.createCompilerHost(opts, true);
  const get = h.getSourceFile;
  h.getSourceFile = (name, lang, onError) => name === MAIN ?
    ts.createSourceFile(MAIN, code, lang, true) : get.call(h, name, lang, onError);
  h.getDefaultLibLocation = () => `${TS_DIR}/lib`;
  h.getCurrentDirectory = () => '/workspace';
  h.resolveModuleNames = (names, from) => names.map((n) =>
    ts.resolveModuleName(n, from === MAIN ? AS_IF : from, opts, h).resolvedModule);
  return h;
}

// One error as a compiler prints it, with the line it is on.
function describe(ts, d) {
  const msg = ts.flattenDiagnosticMessageText(d.messageText, '\n');
  if (!d.file)
    return `error TS${d.code}: ${msg}`;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  const src = d.file.text.split('\n')[line].replace(/\r$/, '');
  return `${d.file.fileName}:${line + 1}:${character + 1} - error TS${d.code}: ${msg}\n` +
    `  ${line + 1} | ${src}\n  ${' '.repeat(String(line + 1).length)} | ${' '.repeat(character)}^`;
}

// The last line: what failed, what to do.
function verdict(ts, errs) {
  const n = errs.length;
  const why = errs.some((d) => d.file && /\/node_modules\//.test(d.file.fileName)) ?
    `some are in a package's types, which TypeScript ${ts.version} cannot read: install an ` +
    'older version of that package (@types/node: 20.x)' : NODE_TYPES ?
    'Node.js\'s API is typed by node_modules/@types/node' :
    'Node.js\'s own API and packages without types are typed any';
  return `sr-mcp: the TypeScript did not type-check (${n} error${n > 1 ? 's' : ''}` +
    `${n > 20 ? ', the first 20 shown' : ''}); nothing ran. Fix the code at the lines given and ` +
    `run it again (${why})\n`;
}

// The verdict fd, written (a failed check) or not, closed: from here on
// nothing in this process holds the file.
function close_verdict(failed) {
  if (VERDICT < 0)
    return;
  try {
    if (failed)
      fs.writeSync(VERDICT, 'typecheck failed\n');
  } finally {
    fs.closeSync(VERDICT);
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
  Module._initPaths();
}

function check(code) {
  const ts = require(TS_DIR);
  const opts = options(ts);
  const program = ts.createProgram([MAIN, ANY_MODULE].concat(NODE_TYPES ? [] : [GLOBALS]), opts, host(ts, opts, code));
  const errs = ts.getPreEmitDiagnostics(program).filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errs.length) {
    close_verdict(true);
    process.stderr.write(errs.slice(0, 20).map((d) => describe(ts, d)).join('\n') + '\n' + verdict(ts, errs));
    process.exit(1);
  }
  // The JavaScript of each TypeScript file it checked (the code, and the
  // workspace's .ts files it imports), by the file's URL.
  const files = {};
  program.emit(undefined, (name, text, bom, onError, sources) => {
    if (/\.js$/.test(name) && sources && sources.length)
      files[url.pathToFileURL(sources[0].fileName).href] = text;
  });
  delete require.cache[require.resolve(TS_DIR)];  // the compiler's memory is the code's again
  return files;
}

async function main() {
  const files = check(fs.readFileSync(MAIN, 'utf8'));
  close_verdict(false);
  apply_env();
  Module.register('./ts-hooks.mjs', url.pathToFileURL(__filename), { data: { main: MAIN, asIf: AS_IF, files } });
  globalThis.require = Module.createRequire(AS_IF);
  process.argv.splice(1, 1, MAIN);
  await import(url.pathToFileURL(MAIN).href);
}
main();
