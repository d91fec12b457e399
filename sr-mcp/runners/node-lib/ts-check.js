// ts-check.js - the type check of sr-mcp's typescript runner, used by
// ts.js (run as it is, or from the start-up snapshot ts-snapshot.js made).
//
// The code (/run/sr/main.ts, its imports resolved as if it were
// /workspace/main.ts) is checked in strict mode against ES2022 and
// Node.js's own types: the pinned @types/node the runner binds read-only
// at /run/sr/types/node_modules/@types/node. The workspace's tsconfig.json
// is not read and its node_modules/@types/node is not looked at when those
// are there (the type root is /run/sr/types alone). Without them, the
// workspace's @types/node if it has one, else node-globals.d.ts (any).
//
// The files of the compiler's lib and of the bound types never change
// under a run (read-only, the trusted directories of sr-mcp's runners.c):
// once parsed, they are kept (a snapshot holds them parsed and bound).
'use strict';
const fs = require('fs');

const MAIN = '/run/sr/main.ts';
const AS_IF = '/workspace/main.ts';
const TS_DIR = '/run/sr/typescript';
const TYPES_DIR = '/run/sr/types';
const TRUSTED = [`${TS_DIR}/`, `${TYPES_DIR}/`, `${__dirname}/`];

// Which types describe Node.js: 'bound', 'workspace' or 'loose'.
function which_types() {
  if (fs.existsSync(`${TYPES_DIR}/node_modules/@types/node/index.d.ts`))
    return 'bound';
  return fs.existsSync('/workspace/node_modules/@types/node/index.d.ts') ? 'workspace' : 'loose';
}

function options(ts, types) {
  return {
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022,
    moduleResolution: ts.ModuleResolutionKind.NodeJs, moduleDetection: ts.ModuleDetectionKind.Force,
    lib: ['lib.es2022.d.ts'], types: types === 'loose' ? [] : ['node'],
    typeRoots: [types === 'bound' ? `${TYPES_DIR}/node_modules/@types` : '/workspace/node_modules/@types'],
    strict: true, esModuleInterop: true, allowSyntheticDefaultImports: true, resolveJsonModule: true,
    skipLibCheck: true, useUnknownInCatchVariables: false, noEmitOnError: true, inlineSourceMap: true,
    inlineSources: true,
  };
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
function verdict(ts, errs, types) {
  const n = errs.length;
  const why = errs.some((d) => d.file && /\/node_modules\//.test(d.file.fileName)) ?
    `some are in a package's types, which TypeScript ${ts.version} cannot read: install an ` +
    'older version of that package' : types === 'bound' ?
    'Node.js\'s API is typed by @types/node ' + types_version() :
    types === 'workspace' ? 'Node.js\'s API is typed by node_modules/@types/node' :
    'Node.js\'s own API and packages without types are typed any';
  return `sr-mcp: the TypeScript did not type-check (${n} error${n > 1 ? 's' : ''}` +
    `${n > 20 ? ', the first 20 shown' : ''}); nothing ran. Fix the code at the lines given and ` +
    `run it again (${why})\n`;
}

function types_version() {
  try {
    return JSON.parse(fs.readFileSync(`${TYPES_DIR}/node_modules/@types/node/package.json`, 'utf8')).version;
  } catch (e) {
    return '';
  }
}

// text with each JSDoc comment (/** */) made spaces, its line breaks kept:
// the positions the same, its nodes never made (they document, in a .d.ts
// they type nothing). By the compiler's own scanner, which knows strings.
function blank_docs(ts, text) {
  const sc = ts.createScanner(ts.ScriptTarget.ES2022, false, ts.LanguageVariant.Standard, text);
  const out = [];
  let at = 0;
  for (let k = sc.scan(); k !== ts.SyntaxKind.EndOfFileToken; k = sc.scan()) {
    if (k !== ts.SyntaxKind.MultiLineCommentTrivia || !sc.getTokenText().startsWith('/**'))
      continue;
    out.push(text.slice(at, sc.getTokenPos()), sc.getTokenText().replace(/[^\r\n]/g, ' '));
    at = sc.getTextPos();
  }
  out.push(text.slice(at));
  return out.join('');
}

// A checker: check(code) gives { errs, text, files }: the errors (as
// printed, and the verdict line), or the JavaScript of each TypeScript
// file checked (the code, the workspace's .ts files it imports) by URL.
function checker(ts, url) {
  const types = which_types();
  const opts = options(ts, types);
  const kept = new Map(), resolved = new Map();
  const roots = [MAIN, `${__dirname}/any-module.d.ts`].concat(types === 'loose' ? [`${__dirname}/node-globals.d.ts`] : []);
  let old;
  function host(code) {
    const h = ts.createCompilerHost(opts, true);
    const get = h.getSourceFile;
    h.getSourceFile = (name, lang, onError) => {
      if (name === MAIN)
        return ts.createSourceFile(MAIN, code, lang, true);
      if (!TRUSTED.some((t) => name.startsWith(t)))
        return get.call(h, name, lang, onError);
      let f = kept.get(name);
      if (!f) {
        const text = h.readFile(name);
        if (text === undefined)
          return get.call(h, name, lang, onError);   // its error, as the compiler says it
        kept.set(name, f = ts.createSourceFile(name, blank_docs(ts, text), lang, false));
      }
      return f;
    };
    h.getDefaultLibLocation = () => `${TS_DIR}/lib`;
    h.getCurrentDirectory = () => '/workspace';
    h.resolveModuleNames = (names, from) => names.map((n) => {
      if (!TRUSTED.some((t) => from.startsWith(t)))
        return ts.resolveModuleName(n, from === MAIN ? AS_IF : from, opts, h).resolvedModule;
      const k = `${from}\0${n}`;   // a trusted file's import: among trusted files
      if (!resolved.has(k))
        resolved.set(k, ts.resolveModuleName(n, from, opts, h).resolvedModule);
      return resolved.get(k);
    });
    return h;
  }
  function check(code) {
    const program = ts.createProgram(roots, opts, host(code), old);
    old = program;
    const errs = ts.getPreEmitDiagnostics(program).filter((d) => d.category === ts.DiagnosticCategory.Error);
    if (errs.length)
      return { errs, text: errs.slice(0, 20).map((d) => describe(ts, d)).join('\n') + '\n' + verdict(ts, errs, types) };
    const files = {};
    program.emit(undefined, (name, text, bom, onError, sources) => {
      if (/\.js$/.test(name) && sources && sources.length)
        files[url.pathToFileURL(sources[0].fileName).href] = text;
    });
    return { files };
  }
  return { check, types };
}

module.exports = { checker, which_types, MAIN, AS_IF, TS_DIR };
