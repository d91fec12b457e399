// typescript.mjs - the typescript runner through the official SDK v1
// client (which checks each structuredContent against its outputSchema):
// hello world; a type error is a failed run whose stderr names
// main.ts:LINE:COL and the message, and nothing of the code ran; top-level
// await, import of Node.js's builtins, the workspace's files and
// node_modules (a package's own types are checked); Node.js's own types
// (the pinned @types/node), which a planted node_modules/@types or
// tsconfig.json does not replace; a stack trace names the TypeScript's
// lines; the check's verdict, which code forging it (the line printed,
// every descriptor written, NODE_OPTIONS and LD_PRELOAD) cannot give;
// memory; the chain as for javascript (no network, / read-only,
// /workspace writable); the start-up snapshot, and the same verdicts
// without it; each with the same code under javascript, unchecked or on
// the host as its control.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, skip, done, server, stateDir, serverEnv, sc, text, asan } from './tap.mjs';

const T = { timeout: 120000 };
const state = stateDir();
const client = new Client({ name: 'sr-test-typescript', version: '1' });
await client.connect(new StdioClientTransport({ command: server, args: [], stderr: 'pipe',
  env: serverEnv(state, { SR_MCP_MEMORY_MAX: '1024M' }) }));
const call = (name, args) => client.callTool({ name, arguments: args }, undefined, T);
const ts = async (code, extra = {}) => sc(await call('run_code', { language: 'typescript', workspace_id: 'ts', code, ...extra }));
const succeeded = (r, desc) => ok(r.status === 'succeeded', `${desc}: succeeded`, r);

const info = sc(await call('sandbox_info', {}));
const lang = (info.languages || []).find((l) => l.language === 'typescript');
like(lang && lang.version, /^TypeScript \d+\.\d+\.\d+ on Node\.js v\d+/, 'sandbox_info lists typescript with the compiler\'s and Node.js\'s versions');
const tools = (await client.listTools()).tools;
const enumOf = tools.find((t) => t.name === 'run_code').inputSchema.properties.language.enum;
ok(enumOf.includes('typescript'), 'run_code\'s language enum has typescript', enumOf);

let r = await ts('const greet = (who: string): string => `hello, ${who}`;\nconsole.log(greet("world"));\n' +
  'console.error(typeof process.env.SR_VERDICT_FD, process.argv[1]);');
succeeded(r, 'hello world');
is(r.stdout, 'hello, world\n', 'hello world prints');
is(r.stderr, 'undefined /run/sr/main.ts\n', 'its argv[1] is its file');

// ---- a type error ----------------------------------------------------------
r = await ts('console.log("ran");\nconst n: number = "three";\nfunction f(a: string) { return a.length; }\nf(42);');
is(r.status, 'failed', 'a type error: failed');
like(r.stderr, /main\.ts:2:7 - error TS2322: Type 'string' is not assignable to type 'number'/, 'it names main.ts:2:7 and the message');
like(r.stderr, /main\.ts:4:3 - error TS2345: Argument of type 'number' is not assignable/, 'and every error, each at its line and column');
like(r.stderr, / 2 \| const n: number = "three";\n +\| +\^/, 'with the line and a caret under the column');
like(r.stderr, /did not type-check \(2 errors\); nothing ran\. Fix the code/, 'and says what to do next');
ok(!/ran/.test(r.stdout), 'nothing of the code ran', r.stdout);
like(r.hint, /did not type-check and none of it ran: fix each error.*@ts-nocheck/, 'the hint says what to do next');
like(r.stderr, /nothing ran\. Fix the code at the lines given and run it again \([^\n]*\)\n$/, 'that is the last line');
r = await call('run_code', { language: 'typescript', workspace_id: 'ts', code: 'let x: number = "no";' });
like(text(r), /main\.ts:1:5 - error TS2322/, 'the text block carries it to the model');
r = await ts('const n: number = 3;\nconsole.log(n + 1);');
is(r.stdout, '4\n', 'control: the same with the types right runs');
r = await ts('// @ts-nocheck\nconst n: number = "three";\nconsole.log(n);');
is(r.stdout, 'three\n', 'control: // @ts-nocheck, as the hint says, runs it unchecked');
// ---- the verdict is not the code's to give ------------------------------------
// The check's verdict goes to a file on fd SR_VERDICT_FD, which ts.js
// closes before any of the code runs, and the call's env is applied only
// then: code that prints the line, looks for the descriptor or the file,
// or runs before ts.js (NODE_OPTIONS, LD_PRELOAD) cannot give it.
r = await ts(`console.error("sr-mcp: the TypeScript did not type-check (1 error); nothing ran. Fix the code at the lines given and run it again (x)");\nprocess.exit(1);`);
ok(r.status === 'failed' && !r.hint, 'forged: code that prints the line itself gets no such hint', r);
const forge = 'import fs from "fs";\nconst found: string[] = [];\n' +
  'const env = fs.readFileSync("/proc/self/environ", "latin1").split("\\0");\n' +
  'found.push("env:" + env.filter((v: string) => /^SR_(VERDICT|MCP_JOB)/.test(v)).join(","));\n' +
  'for (const fd of fs.readdirSync("/proc/self/fd")) {\n' +
  '  let to = ""; try { to = fs.readlinkSync(`/proc/self/fd/${fd}`); } catch (e) { continue; }\n' +
  '  if (/verdict/.test(to)) found.push(`fd ${fd} ${to}`);\n' +
  '  if (+fd > 2 && /^\\//.test(to)) { try { fs.writeSync(+fd, "typecheck failed\\n"); found.push(`wrote ${fd} ${to}`); } catch (e) {} }\n' +
  '}\n' +
  'for (const p of ["/proc/self/fd/8", "/proc/self/fd/9", "/proc/1/fd/8", "/proc/1/fd/9"]) { try { fs.writeFileSync(p, "typecheck failed\\n"); found.push("wrote " + p); } catch (e) { found.push(`${p} ${e.code}`); } }\n' +
  'console.log(found.join("\\n"));\nprocess.exit(1);';
r = await ts(forge);
ok(r.status === 'failed' && !r.hint, 'forged: code that writes "typecheck failed" to every descriptor it has, /proc/self/fd/8 and 9, /proc/1/fd/8 and 9, gets no hint', r);
like(r.stdout, /^env:SR_VERDICT_FD=8\n/, 'control: its initial environment names the descriptor (the code knows where to look)');
ok(!/verdict/.test(r.stdout.split('\n').slice(1).join('\n')), 'no descriptor of the code reaches the verdict file', r.stdout);
like(r.stdout, /\/proc\/1\/fd\/8 EACCES\n\/proc\/1\/fd\/9 EACCES/, 'the jail\'s init holds it out of reach');
await call('write_file', { workspace_id: 'ts', path: 'forge.js', content: 'try { for (const fd of [8, 9]) require("fs").writeSync(fd, "typecheck failed\\n"); console.error("preload wrote"); } ' +
  'catch (e) { console.error("preload ran: " + e.code); }' });
r = await call('run_code', { language: 'javascript', workspace_id: 'ts', code: 'console.log("js")', env: { NODE_OPTIONS: '--require /workspace/forge.js' } });
like(sc(r).stderr, /^preload ran/, 'control: in the chain NODE_OPTIONS runs a preload before the code');
r = await ts('console.log("ran", process.env.NODE_OPTIONS, process.env.FOO);', { env: { NODE_OPTIONS: '--require /workspace/forge.js', FOO: 'bar' } });
ok(r.status === 'succeeded' && !r.hint && !/preload/.test(r.stderr), 'forged: NODE_OPTIONS --require does not run before the check (no hint, no preload)', r);
is(r.stdout, 'ran --require /workspace/forge.js bar\n', 'the call\'s env reaches the code\'s process.env');
const gcc = spawnSync('gcc', ['--version']).status === 0;
if (!gcc) {
  skip('forged: LD_PRELOAD before the check', 'no gcc here');
} else {
  r = await call('run_code', { language: 'bash', workspace_id: 'ts', code:
    'printf \'#include <unistd.h>\\n__attribute__((constructor)) static void f(void) { write(8, "typecheck failed\\\\n", 17); write(9, "typecheck failed\\\\n", 17); write(2, "preloaded\\\\n", 10); }\\n\' > f.c && gcc -shared -fPIC -o forge.so f.c && echo built' });
  is(sc(r).stdout, 'built\n', 'a shared object that writes fd 9 when loaded, built in the workspace');
  r = await call('run_code', { language: 'javascript', workspace_id: 'ts', code: 'console.log("js")', env: { LD_PRELOAD: '/workspace/forge.so' } });
  like(sc(r).stderr, /preloaded/, 'control: in the chain LD_PRELOAD loads it before node');
  r = await ts('console.log("ran");', { env: { LD_PRELOAD: '/workspace/forge.so' } });
  ok(r.status === 'succeeded' && !r.hint && r.stdout === 'ran\n', 'forged: LD_PRELOAD does not load before the check: no hint', r);
  r = await ts('const n: number = "x";', { env: { LD_PRELOAD: '/workspace/forge.so' } });
  ok(r.status === 'failed' && /did not type-check/.test(r.hint || ''), 'control: a real type error with the same env gets the hint', r);
}
r = await ts('const a = [1, 2, 3\nconsole.log(a)');
ok(r.status === 'failed' && /main\.ts:2:1 - error TS1005: ',' expected/.test(r.stderr), 'a syntax error: failed, at its line', r);

// ---- what a model's TypeScript does ----------------------------------------
r = await ts('import fs from "fs";\nimport { join } from "node:path";\nimport * as os from "os";\n' +
  'const v = await new Promise<number>((res) => setTimeout(() => res(42), 10));\nconsole.log("awaited", v);\n' +
  'fs.mkdirSync("out", { recursive: true });\nfs.writeFileSync(join("out", "r.txt"), `made ${typeof os.cpus}`);\n' +
  'console.log(fs.readdirSync("out").join());');
succeeded(r, 'top-level await and imports of builtins (default, named, namespace)');
is(r.stdout, 'awaited 42\nr.txt\n', 'they work');
const lf = sc(await call('list_files', { workspace_id: 'ts', recursive: true }));
ok((lf.entries || []).some((e) => e.path === 'out/r.txt'), 'the file written is in the workspace (list_files)', lf);
like(text(await call('read_file', { workspace_id: 'ts', path: 'out/r.txt' })), /^ +1\tmade function\n/, 'read_file reads it');

// ---- the workspace's modules -------------------------------------------------
const put = (path, content) => call('write_file', { workspace_id: 'ts', path, content });
await put('node_modules/greet/package.json', '{"name":"greet","version":"1.0.0","main":"index.js","types":"index.d.ts"}');
await put('node_modules/greet/index.js', 'exports.greet = (n) => `hi ${n}`;');
await put('node_modules/greet/index.d.ts', 'export declare function greet(n: string): string;');
await put('node_modules/untyped/package.json', '{"name":"untyped","version":"1.0.0","main":"index.js"}');
await put('node_modules/untyped/index.js', 'module.exports = (x) => x * 2;');
await put('lib/util.mjs', 'export const triple = (x) => x * 3;');
r = await ts('import { greet } from "greet";\nimport double from "untyped";\nimport { triple } from "./lib/util.mjs";\n' +
  'const fs = require("fs");\nconsole.log(greet("ts"), double(2), triple(2), require("untyped")(5), fs.existsSync("out/r.txt"));');
succeeded(r, 'imports from the workspace\'s node_modules and files, and require');
is(r.stdout, 'hi ts 4 6 10 true\n', 'they resolve as from /workspace (require too: CommonJS habits)');
await put('lib/shape.ts', 'export interface Sq { side: number }\nexport const area = (s: Sq): number => s.side ** 2;\n');
await put('lib/twice.ts', 'import { area } from "./shape.js";\nexport default (n: number) => 2 * area({ side: n });\n');
r = await ts('import { area, Sq } from "./lib/shape";\nimport twice from "./lib/twice.js";\nconst s: Sq = { side: 3 };\nconsole.log(area(s), twice(2));');
succeeded(r, 'the workspace\'s .ts files, imported as TypeScript names them (./lib/shape, ./lib/twice.js)');
is(r.stdout, '9 8\n', 'are checked and run with the code');
r = await ts('import { area } from "./lib/shape";\nconsole.log(area({ side: "3" }));');
ok(r.status === 'failed' && /main\.ts:2:20 - error TS2322: Type 'string' is not assignable to type 'number'/.test(r.stderr),
  'a call that breaks their types is a type error', r);
await put('lib/bad.ts', 'export const b: number = "x";\n');
r = await ts('import { b } from "./lib/bad";\nconsole.log(b);');
ok(r.status === 'failed' && /\/workspace\/lib\/bad\.ts:1:14 - error TS2322/.test(r.stderr), 'an error in an imported .ts file names that file', r);
r = await ts('import { greet } from "greet";\nconsole.log(greet(5));');
ok(r.status === 'failed' && /main\.ts:2:19 - error TS2345/.test(r.stderr), 'a package\'s own types are checked', r);
r = await ts('import { nothere } from "no-such-package";\nconsole.log(nothere);');
ok(r.status === 'failed' && /no-such-package/.test(r.stderr), 'a package that is not installed: failed, naming it', r);

// ---- Node.js's own types ------------------------------------------------------
// The pinned @types/node (make install-env, scripts/node-types.sh), bound
// read-only; neither the workspace's node_modules/@types nor its
// tsconfig.json changes what the check reads. Each plant's control: the
// host's tsc, run in a copy of the same files, reads it.
const idiom = 'import { readFileSync, writeFileSync } from "fs";\nimport * as path from "path";\n' +
  'writeFileSync(path.join(process.cwd(), "lines.txt"), "a\\nbb\\nccc");\n' +
  'const lens = readFileSync("lines.txt", "utf8").split("\\n").map((l) => l.length);\n' +
  'const sum = lens.reduce((a, b) => a + b, 0);\nconsole.log(lens.join(), sum, Buffer.from("hi").toString("hex"), typeof process.pid);';
r = await ts(idiom);
succeeded(r, 'idiomatic Node code: fs, path, process, Buffer and arrow callbacks with inferred types');
is(r.stdout, '1,2,3 6 6869 number\n', 'it type-checks in strict mode and runs');
const typed = 'import fs from "fs";\nconst n: number = fs.readFileSync("lines.txt", "utf8");\nconsole.log(typeof n);';
r = await ts(typed);
ok(r.status === 'failed' && /main\.ts:2:7 - error TS2322: Type 'string' is not assignable to type 'number'/.test(r.stderr) &&
  /typed by @types\/node \d+\.\d+\.\d+\)\n$/.test(r.stderr) && /did not type-check/.test(r.hint || ''),
  'Node.js\'s API is type-checked (@types/node): a misuse is refused with the verdict', r);
r = await ts(`// @ts-nocheck\n${typed}`);
is(r.stdout, 'string\n', 'control: the same unchecked runs');
const fake = 'declare var PLANTED: number;\ndeclare module "fs" { export function readFileSync(p: string, e: "utf8"): number; ' +
  'const fs: { readFileSync(p: string, e: "utf8"): number }; export default fs; }\n';
await call('write_file', { workspace_id: 'tn', path: 'node_modules/@types/node/index.d.ts', content: fake });
await call('write_file', { workspace_id: 'tn', path: 'node_modules/@types/node/package.json', content: '{"name":"@types/node","version":"99.0.0","types":"index.d.ts"}' });
await call('write_file', { workspace_id: 'tn', path: 'node_modules/@types/planted/index.d.ts', content: 'declare var PLANTED: number;\n' });
await call('write_file', { workspace_id: 'tn', path: 'tsconfig.json', content: '{"compilerOptions": {"strict": false, "noImplicitAny": false, "types": ["node", "planted"]}}\n' });
await call('write_file', { workspace_id: 'tn', path: 'lines.txt', content: 'x' });
const plantedCode = 'import fs from "fs";\nconst n: number = fs.readFileSync("lines.txt", "utf8");\nconsole.log(typeof n, typeof PLANTED);';
const loose = 'function f(a) { return a; }\nconsole.log(f(1));';
const host = spawnSync('sh', ['-c', 'd=$(mktemp -d) && cd "$d" && mkdir -p node_modules/@types/node node_modules/@types/planted && ' +
  'printf "%s" "$1" > node_modules/@types/node/index.d.ts && printf "%s" "$2" > node_modules/@types/planted/index.d.ts && ' +
  'printf "%s" "$3" > tsconfig.json && printf "%s" "$4" > main.ts && node /usr/share/nodejs/typescript/bin/tsc -p . --noEmit; echo "rc=$?"; ' +
  'printf "%s" "$5" > main.ts && node /usr/share/nodejs/typescript/bin/tsc -p . --noEmit; echo "rc=$?"; rm -rf "$d"',
  'sh', fake, 'declare var PLANTED: number;\n', '{"compilerOptions": {"strict": false, "noImplicitAny": false, "types": ["node", "planted"]}}', plantedCode, loose],
  { encoding: 'utf8' });
is(host.stdout, 'rc=0\nrc=0\n', 'control: the host\'s tsc in a copy of that workspace reads the planted @types/node and tsconfig.json (both check clean)');
r = await ts(plantedCode, { workspace_id: 'tn' });
ok(r.status === 'failed' && /main\.ts:2:7 - error TS2322: Type 'string' is not assignable to type 'number'/.test(r.stderr) &&
  /Cannot find name 'PLANTED'/.test(r.stderr), 'a planted node_modules/@types/node (and @types/planted) is not read: Node.js\'s real types are', r);
r = await ts(loose, { workspace_id: 'tn' });
ok(r.status === 'failed' && /main\.ts:1:12 - error TS7006: Parameter 'a' implicitly has an 'any' type/.test(r.stderr),
  'a planted tsconfig.json is not read: strict mode holds', r);
r = await ts(idiom, { workspace_id: 'tn' });
is(r.stdout, '1,2,3 6 6869 number\n', 'and ordinary Node code still checks and runs there');
await call('write_file', { workspace_id: 'tn', path: 'node_modules/broken/package.json', content: '{"name":"broken","version":"1.0.0","types":"index.d.ts"}' });
await call('write_file', { workspace_id: 'tn', path: 'node_modules/broken/index.d.ts', content: 'export declare var x: = 1;\n' });
r = await ts('import { x } from "broken";\nconsole.log(x);', { workspace_id: 'tn' });
ok(r.status === 'failed' && /node_modules\/broken\/index\.d\.ts:1:\d+ - error TS/.test(r.stderr) &&
  /some are in a package's types, which TypeScript [\d.]+ cannot read: install an older version/.test(r.stderr),
  'types this TypeScript cannot read: failed, naming the file and what to do', r);

// ---- run-time errors and argv ----------------------------------------------
r = await ts('type P = { x: number };\nconst p: P = { x: 1 };\nthrow new Error(`boom ${p.x}`);');
ok(r.status === 'failed' && /Error: boom 1/.test(r.stderr) && /main\.ts:3:7/.test(r.stderr),
  'an exception: failed, its stack names main.ts at the TypeScript\'s line (source map)', r.stderr);

// ---- memory -----------------------------------------------------------------
const rlimit = /^rlimit/.test(info.memory_enforcement || '');
if (asan || !rlimit) {
  skip('typescript: a buffer the rlimit refused is reported', asan ? 'SAN=address: no memory limit' : 'memory by cgroup here');
} else {
  r = await ts('const b = Buffer.alloc(2 ** 31);\nconsole.log(b.length);', { memory_mb: 256 });
  ok(r.status === 'failed' && r.limit_hit === null && /^The program reported an allocation failure \(Node\.js: RangeError: Array buffer allocation failed\)/.test(r.hint || ''),
    'typescript: a buffer the rlimit refused: failed, the hint gives Node.js\'s report as the program\'s', r);
  r = await ts('try { new ArrayBuffer(1e10); } catch (e) { console.error(String(e)); process.exit(1); }', { memory_mb: 256 });
  ok(r.status === 'failed' && r.limit_hit === null, 'control: caught, it is the code\'s own failure', r);
}

// ---- the chain ----------------------------------------------------------------
const probe = 'import fs from "fs";\nconst tryw = (p: string): string => { try { fs.writeFileSync(p, "x"); return "wrote"; } catch (e) { return e.code; } };\n' +
  'console.log("/", tryw("/sr-ts-probe"), "/workspace", tryw("/workspace/probe"), "/run/sr/typescript", tryw("/run/sr/typescript/x"),\n' +
  '  "/run/sr/types", tryw("/run/sr/types/node_modules/@types/node/index.d.ts"), "/run/sr/ts.snapshot", tryw("/run/sr/ts.snapshot"));\n' +
  'const { spawnSync } = await import("child_process");\n' +
  'const c = spawnSync(process.execPath, ["-e", "require(\'net\').connect(9, \'127.0.0.1\').on(\'connect\', () => console.log(\'connected\')).on(\'error\', (e) => console.log(e.code))"], { encoding: "utf8" });\n' +
  'console.log("net", c.stdout.trim());';
r = await ts(probe);
like(r.stdout, /^\/ EROFS \/workspace wrote \/run\/sr\/typescript EROFS \/run\/sr\/types EROFS \/run\/sr\/ts\.snapshot EROFS\nnet (EPERM|EACCES)\n$/,
  'the chain: / read-only, and the compiler, the types and the snapshot it started from; /workspace writable, no network');
const js = sc(await call('run_code', { language: 'javascript', workspace_id: 'ts',
  code: 'const fs = require("fs"); try { fs.writeFileSync("/sr-ts-probe", "x"); console.log("wrote"); } catch (e) { console.log(e.code); }' }));
is(js.stdout, 'EROFS\n', 'javascript sees the same root');
const h = spawnSync('node', ['-e', "require('net').connect(9, '127.0.0.1').on('connect', () => console.log('connected')).on('error', (e) => console.log(e.code))"], { encoding: 'utf8' });
like(h.stdout, /^(ECONNREFUSED|connected)\n$/, 'control: on the host the same connect reaches the loopback (refused or connected, not EPERM)');

// ---- the start-up snapshot ------------------------------------------------------
// Made by the first call in STATE/typescript, from the compiler, the types
// and node-lib alone, the user's only; every call above but the first
// started from it. Where it cannot be made, the full check, same verdicts.
const snaps = readdirSync(`${state}/typescript`).filter((f) => /\.snapshot$/.test(f));
ok(snaps.length === 1 && (statSync(`${state}/typescript/${snaps[0]}`).mode & 0o077) === 0 &&
  (statSync(`${state}/typescript`).mode & 0o077) === 0, 'one snapshot, in STATE/typescript, the user\'s alone', snaps);
await client.close();
const state2 = stateDir();
writeFileSync(`${state2}/typescript`, 'not a directory\n');
const c2 = new Client({ name: 'sr-test-typescript-full', version: '1' });
await c2.connect(new StdioClientTransport({ command: server, args: [], stderr: 'pipe',
  env: serverEnv(state2, { SR_MCP_MEMORY_MAX: '1024M' }) }));
const ts2 = async (code) => sc(await c2.callTool({ name: 'run_code', arguments: { language: 'typescript', workspace_id: 'ts', code } }, undefined, T));
r = await ts2(idiom);
is(r.stdout, '1,2,3 6 6869 number\n', 'no snapshot (STATE/typescript a file): the full check passes ordinary Node code');
r = await ts2(typed);
ok(r.status === 'failed' && /main\.ts:2:7 - error TS2322/.test(r.stderr) && /did not type-check/.test(r.hint || ''),
  'and refuses a type error with the verdict', r);
r = await ts2(forge);
ok(r.status === 'failed' && !r.hint, 'forged without the snapshot: every descriptor written, no hint', r);
await c2.close();
done();
process.exit();
