// typescript.mjs - the typescript runner through the official SDK v1
// client (which checks each structuredContent against its outputSchema):
// hello world; a type error is a failed run whose stderr names
// main.ts:LINE:COL and the message, and nothing of the code ran; top-level
// await, import of Node.js's builtins, the workspace's files and
// node_modules (a package's own types are checked); a stack trace names
// the TypeScript's lines; the check's verdict, which code forging it
// (the line printed, every descriptor written, NODE_OPTIONS and
// LD_PRELOAD) cannot give; memory; and the chain as for
// javascript (no network, / read-only, /workspace writable), each with
// the same code under javascript or a plain host run as its control.
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, skip, done, server, stateDir, serverEnv, sc, text, asan } from './tap.mjs';

const T = { timeout: 120000 };
const client = new Client({ name: 'sr-test-typescript', version: '1' });
await client.connect(new StdioClientTransport({ command: server, args: [], stderr: 'pipe',
  env: serverEnv(stateDir(), { SR_MCP_MEMORY_MAX: '1024M' }) }));
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

// Node.js's types where the workspace has them (npm @types/node), a small
// stand-in here: its fs.readFileSync returns a string.
const nodeTypes = 'declare var console: { log(...a: any[]): void };\ndeclare var require: any;\n' +
  'declare module "fs" { export function readFileSync(p: string, e: "utf8"): string; ' +
  'const fs: { readFileSync(p: string, e: "utf8"): string }; export default fs; }\n';
await call('write_file', { workspace_id: 'tn', path: 'node_modules/@types/node/index.d.ts', content: nodeTypes });
const typed = 'import fs from "fs";\nconst n: number = fs.readFileSync("out/r.txt", "utf8");\nconsole.log(typeof n);';
r = await ts(typed, { workspace_id: 'tn' });
ok(r.status === 'failed' && /main\.ts:2:7 - error TS2322: Type 'string' is not assignable to type 'number'/.test(r.stderr) &&
  /typed by node_modules\/@types\/node/.test(r.stderr), 'with node_modules/@types/node, Node.js\'s API is type-checked', r);
r = await ts(typed);
is(r.stdout, 'string\n', 'control: without it the same code type-checks (fs is any) and runs');
await call('write_file', { workspace_id: 'tn', path: 'node_modules/@types/node/index.d.ts', content: 'declare var x: = 1;\n' });
r = await ts('console.log(1);', { workspace_id: 'tn' });
ok(r.status === 'failed' && /node_modules\/@types\/node\/index\.d\.ts:1:\d+ - error TS/.test(r.stderr) &&
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
  'console.log("/", tryw("/sr-ts-probe"), "/workspace", tryw("/workspace/probe"), "/run/sr/typescript", tryw("/run/sr/typescript/x"));\n' +
  'const { spawnSync } = await import("child_process");\n' +
  'const c = spawnSync(process.execPath, ["-e", "require(\'net\').connect(9, \'127.0.0.1\').on(\'connect\', () => console.log(\'connected\')).on(\'error\', (e) => console.log(e.code))"], { encoding: "utf8" });\n' +
  'console.log("net", c.stdout.trim());';
r = await ts(probe);
like(r.stdout, /^\/ EROFS \/workspace wrote \/run\/sr\/typescript EROFS\nnet (EPERM|EACCES)\n$/, 'the chain: / and the compiler read-only, /workspace writable, no network');
const js = sc(await call('run_code', { language: 'javascript', workspace_id: 'ts',
  code: 'const fs = require("fs"); try { fs.writeFileSync("/sr-ts-probe", "x"); console.log("wrote"); } catch (e) { console.log(e.code); }' }));
is(js.stdout, 'EROFS\n', 'javascript sees the same root');
const h = spawnSync('node', ['-e', "require('net').connect(9, '127.0.0.1').on('connect', () => console.log('connected')).on('error', (e) => console.log(e.code))"], { encoding: 'utf8' });
like(h.stdout, /^(ECONNREFUSED|connected)\n$/, 'control: on the host the same connect reaches the loopback (refused or connected, not EPERM)');

await client.close();
done();
process.exit();
