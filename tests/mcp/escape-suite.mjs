// escape-suite.mjs - the escape suite (tests/escape/) through sr-mcp's
// run_code, case by case, from the table tests/escape/run_code.tsv: each
// row names the shell case it mirrors, the runner (bash, python,
// javascript; "host" for a check of the host's state afterwards), the
// code, what it must print inside, and what the same code must print on
// the host (the control, which shows the probe works). Rows are batched
// into one run_code call per runner; a row marked "alone" (it needs a run
// of its own, or a limit of the call) gets its own call, and its result
// is added to its output as "@result STATUS REASON EXIT SIGNAL". The C
// probes of the shell suite (tests/probes/*.c) are built on the host and
// written into the workspace with write_file. One sr-mcp serves it all,
// started with --pids 64 like the shell suite's chain.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, readdirSync, copyFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, skip, done, diag, root, server, stateDir, serverEnv, sc, sleep, asan } from './tap.mjs';

const T = mkdtempSync(`${process.env.TMPDIR || '/tmp'}/sr-escape-mcp.`);
const cleanups = [];
process.on('exit', () => { for (const f of cleanups) try { f(); } catch { /* gone */ } });
const sh = (code, opts = {}) => spawnSync('bash', ['-c', code], { encoding: 'utf8', timeout: 30000, ...opts });

// --- the probes, built on the host ------------------------------------------------
const P = join(T, 'p');
mkdirSync(P);
const probes = { fp: [], pp: [], sp: [], np: [], rp: ['-pthread'], kp: [], tty: [], balloon: [] };
for (const [name, extra] of Object.entries(probes)) {
  const r = spawnSync('cc', ['-O1', '-w', '-o', join(P, name), join(root, 'tests/probes', `${name}.c`), ...extra], { encoding: 'utf8' });
  if (r.status !== 0) { console.log(`Bail out! the probe ${name} does not build: ${r.stderr || r.error}`); process.exit(1); }
}
copyFileSync(join(root, 'tests/probes/ontty.py'), join(P, 'ontty.py'));
copyFileSync(join(root, 'tests/probes/onpty.py'), join(P, 'onpty.py'));

// --- what the attacks aim at, on the host -----------------------------------------
const F = { P, T, ROOT: root, PID: String(process.pid), UID: String(process.getuid()) };
const why = {};                                   // placeholder -> why it is missing
const home = join(T, 'home');
mkdirSync(join(home, '.ssh'), { recursive: true });
F.HOME = home;
writeFileSync(join(home, '.ssh/id_ed25519'), `-----BEGIN OPENSSH PRIVATE KEY----- sr-fake-${process.pid}\n`, { mode: 0o600 });
for (const c of ['.netrc', '.git-credentials', '.aws/credentials', '.docker/config.json', '.config/gh/hosts.yml', '.ssh/id_rsa']) {
  mkdirSync(join(home, c, '..'), { recursive: true });
  writeFileSync(join(home, c), `credential ${c} ${process.pid}\n`);
}
F.HOMEFILE = join(home, 'secret');
// the jail's share of the user's inotify counts (tests/escape/55-user-counts.t)
const eighth = (f) => Math.min(8192, Math.floor(Number(readFileSync(f, 'utf8')) / 8));
F.IBOUND = String(eighth('/proc/sys/fs/inotify/max_user_instances'));
F.WBOUND = String(eighth('/proc/sys/fs/inotify/max_user_watches'));
F.WMORE = String(Number(F.WBOUND) + 500);
writeFileSync(F.HOMEFILE, `home secret ${process.pid}\n`);
mkdirSync(join(T, 'cwd'));
writeFileSync(join(T, 'cwd/here'), 'cwd secret\n');
writeFileSync(join(T, 'fdfile'), 'fd secret\n');
mkdirSync(join(T, 'keys'));
writeFileSync(join(T, 'keys/id'), 'ssh-key\n');
copyFileSync(join(root, 'sr-exec/sr-exec'), join(T, 'sr-exec.orig'));
F.TOKEN = `sr-token-${process.pid}-${Math.random().toString(36).slice(2)}`;
F.TOKENREV = [...F.TOKEN].reverse().join('');
writeFileSync(join(T, 'sys.orig'), readFileSync('/proc/sys/kernel/core_pattern', 'utf8') + readFileSync('/proc/sys/kernel/hostname', 'utf8'));

// Host processes of the user to attack.
const victims = [spawn('sleep', ['120']), spawn('sleep', ['120'])];
cleanups.push(() => victims.forEach((v) => v.kill()));
F.VICTIM = String(victims[0].pid);
F.VICTIM2 = String(victims[1].pid);
F.NICE = sh(`ps -o ni= -p ${F.VICTIM}`).stdout.trim();

// Listeners on the host's loopback and an abstract socket, which log what
// reaches them (one kind a line) into @LOG; an ssh agent logging into @AGENTLOG.
F.LOG = join(T, 'log');
F.AGENTLOG = join(T, 'agent.log');
writeFileSync(F.LOG, '');
writeFileSync(F.AGENTLOG, '');
const listeners = spawn('python3', [join(root, 'tests/probes/listen.py'), F.LOG, join(T, 'ports'), (F.ABS = `sr-escape-mcp-${process.pid}`), '600'],
  { stdio: 'inherit' });
cleanups.push(() => listeners.kill());
for (let i = 0; i < 200 && !existsSync(join(T, 'ports')); i++) await sleep(50);
[F.TPORT, F.UPORT, F.T6PORT] = readFileSync(join(T, 'ports'), 'utf8').trim().split(' ');
if (F.T6PORT === '0') why.T6PORT = 'the host has no IPv6 loopback';
F.AGENT = join(T, 'agent.sock');
const agent = createServer((s) => { writeFileSync(F.AGENTLOG, 'conn\n', { flag: 'a' }); s.destroy(); });
await new Promise((res) => agent.listen(F.AGENT, res));
cleanups.push(() => agent.close());

// SysV and POSIX IPC objects of the host, made by the probe.
F.KEY = String(((process.pid << 8) ^ Math.floor(Math.random() * 32768)) & 0x7fffffff);
F.MQ = `/sr-escape-mcp-${process.pid}`;
F.SHMID = sh(`${P}/np mkshm ${F.KEY}`).stdout.trim();
F.MSQID = sh(`${P}/np mkmsg ${F.KEY}`).stdout.trim();
sh(`${P}/np mkmq ${F.MQ}`);
cleanups.push(() => sh(`${P}/np rm ${F.SHMID || -1} ${F.MSQID || -1} ${F.MQ}`));
F.SHMFILE = `/dev/shm/sr-escape-mcp-${process.pid}`;
try { writeFileSync(F.SHMFILE, 'posix shm secret\n'); cleanups.push(() => sh(`rm -f ${F.SHMFILE}`)); } catch { why.SHMFILE = 'cannot write /dev/shm here'; }

// A key in the user's keyring.
F.KDESC = `sr-test-mcp-${process.pid}`;
const kid = sh(`keyctl add user ${F.KDESC} secret-${process.pid} @u`).stdout.trim();
if (/^\d+$/.test(kid)) {
  F.KID = kid;
  F.KHEX = Number(kid).toString(16).padStart(8, '0');
  cleanups.push(() => sh(`keyctl unlink ${kid} @u`));
} else why.KID = sh('command -v keyctl').status ? 'keyctl(1) is not installed (Debian package keyutils)' : `keyctl add failed here: ${kid}`;
// A handle of a host file, to replay inside.
writeFileSync(join(T, 'hsecret'), 'handle secret\n');
const hnd = sh(`${P}/fp gethandle ${T}/hsecret`).stdout.trim();
if (/^\d+:[0-9a-f]+$/.test(hnd)) F.HND = hnd; else why.HND = `name_to_handle_at does not work here: ${hnd}`;
// Signals to the jail's init: refused where sr-exec scopes signals (Landlock ABI 6).
F.INITSIG = /scoped abstract unix sockets and signals/.test(sh('sr-exec -v true').stderr) ? 'EPERM' : 'ok';
F.ARCH = execFileSync('uname', ['-m']).toString().trim();
if (F.ARCH === 'x86_64') F.AMD64 = F.ARCH; else why.AMD64 = `not x86_64 (${F.ARCH})`;

// --- the table ------------------------------------------------------------------
const rows = [];
const lines = readFileSync(join(root, 'tests/escape/run_code.tsv'), 'utf8').split('\n');
lines.forEach((l, i) => {
  if (!l || l.startsWith('#')) return;
  const c = l.split('\t');
  if (c.length < 6) { console.log(`Bail out! tests/escape/run_code.tsv:${i + 1}: ${c.length} columns, not 6 or 7`); process.exit(1); }
  const [mirrors, lang, opts, code, want, control, ccode] = c;
  const o = {};
  for (const kv of opts === '-' ? [] : opts.split(',')) { const i = kv.indexOf('='); o[i < 0 ? kv : kv.slice(0, i)] = i < 0 ? true : kv.slice(i + 1); }
  rows.push({ n: rows.length, line: i + 1, mirrors, lang, o, code, want, control, ccode: ccode || code });
});
const unesc = (s) => s.replace(/\\n/g, '\n').replace(/\\t/g, '\t');
const subst = (s, p) => unesc(s).replace(/@([A-Z][A-Z0-9]*)/g, (m, k) => (k === 'P' ? p : k in F ? F[k] : m));
// Why a row cannot run here (a fact it needs is missing), or nothing.
const missing = (r) => {
  if (asan && r.o.memory_mb) return "ASan's shadow memory fits under no memory limit (SAN=address)";
  const k = [r.code, r.want, r.control, r.ccode].join(' ').match(/@([A-Z][A-Z0-9]*)/g)
    ?.map((m) => m.slice(1)).find((x) => x !== 'P' && (why[x] || !(x in F)));
  return k && (why[k] || `no @${k} here`);
};
const re = (s) => new RegExp(`^(?:${subst(s, '/workspace/p')})$`, 's');

// --- the server -----------------------------------------------------------------
F.STATE = stateDir();
const c = new Client({ name: 'sr-test-escape-suite', version: '1' });
await c.connect(new StdioClientTransport({ command: server, args: ['--pids', '64'], stderr: 'pipe', cwd: join(T, 'cwd'),
  env: serverEnv(F.STATE, { HOME: home, SECRET_TOKEN: F.TOKEN, GITHUB_TOKEN: `${F.TOKEN}-gh`,
    AWS_SECRET_ACCESS_KEY: `${F.TOKEN}-aws`, SSH_AUTH_SOCK: F.AGENT }) }));
const TO = { timeout: 300000 };
// How memory is bounded here decides what a balloon meets (tests/escape/03-mem-shared.t).
const info = sc(await c.callTool({ name: 'sandbox_info', arguments: {} }, undefined, { timeout: 300000 }));
if (/^cgroup/.test(info.memory_enforcement || '')) { F.CGROUP = 'cgroup'; why.NOCGROUP = 'a delegated cgroup bounds the memory here'; }
else { F.NOCGROUP = 'rlimit'; why.CGROUP = `no delegated cgroup here (${info.memory_enforcement})`; }
const call = async (name, args) => {
  const r = await c.callTool({ name, arguments: args }, undefined, TO);
  if (r.isError && !r.structuredContent) diag(`${name}: ${JSON.stringify(r.content)}`);
  return r;
};
// The probes go into each workspace that needs them the way a model's files would.
const stocked = new Set();
async function stock(ws) {
  if (stocked.has(ws)) return;
  for (const f of readdirSync(P))
    await call('write_file', { workspace_id: ws, path: `p/${f}`, content: readFileSync(join(P, f)).toString('base64'), encoding: 'base64' });
  const r = sc(await call('run_code', { language: 'bash', workspace_id: ws, code: 'chmod 700 /workspace/p/* && echo ready' }));
  if (r.stdout !== 'ready\n') { console.log(`Bail out! the probes could not be put into workspace ${ws}: ${JSON.stringify(r)}`); process.exit(1); }
  stocked.add(ws);
}
const runCode = async (lang, code, o) => {
  const ws = o.ws || 'escape';
  await stock(ws);
  const args = { language: lang, workspace_id: ws, code };
  for (const k of ['timeout_s', 'memory_mb']) if (o[k]) args[k] = Number(o[k]);
  if (o.env) args.env = { [o.env]: F.TOKEN };     // run_code's env: for the program only
  return sc(await call('run_code', args));
};
const resultLine = (r) => `@result ${r.status} ${r.reason} ${r.exit_code} ${r.signal} wall=${r.wall_ms} cpu=${r.cpu_ms}`;

// A batch: every case of a runner in one program, each between markers.
const wrap = {
  bash: (rs) => rs.map((r) => `printf '\\n@@case ${r.n}\\n'\n( ${subst(r.code, '/workspace/p')}\n) </dev/null 2>&1\n`).join(''),
  python: (rs) => 'import sys\n' + rs.map((r) => `print("\\n@@case ${r.n}", flush=True)\ntry:\n    exec(${JSON.stringify(subst(r.code, '/workspace/p'))}, {})\nexcept BaseException as e:\n    print("exception", type(e).__name__, e)\nsys.stdout.flush()\n`).join(''),
  javascript: (rs) => rs.map((r) => `console.log("\\n@@case ${r.n}");\ntry { eval(${JSON.stringify(subst(r.code, "/workspace/p"))}); } catch (e) { console.log("exception", e.code || e.name, e.message); }\n`).join(''),
};
wrap.typescript = wrap.javascript;  // the same JavaScript, type-checked and run as an ES module
const got = {};
const active = rows.filter((r) => r.lang !== 'host' && !missing(r));
for (const lang of ['bash', 'python', 'javascript', 'typescript']) {
  const rs = active.filter((r) => r.lang === lang && !r.o.alone && !r.o.ws);
  if (!rs.length) continue;
  const r = await runCode(lang, wrap[lang](rs), {});
  const parts = (r.stdout + (r.stderr ? `\n@@stderr\n${r.stderr}` : '')).split(/^@@case (\d+)\n/m);
  for (let i = 1; i < parts.length; i += 2) got[parts[i]] = parts[i + 1];
  diag(`${lang}: ${rs.length} cases in one run_code call: ${r.status} (${r.wall_ms} ms)`);
}
// Alone: a call of their own, in the order of the table.
for (const r of active.filter((x) => x.o.alone || x.o.ws)) {
  let during;
  if (r.o.during) during = sleep(1500).then(() => sh(subst(r.o.during, P)));
  const res = await runCode(r.lang, subst(r.code, '/workspace/p'), r.o);
  got[r.n] = `${r.o.quiet ? '' : res.stdout + res.stderr}${r.o.alone ? `${resultLine(res)}\n` : ''}`;
  if (r.o.quiet) got[r.n] = got[r.n].replace(/\n$/, ` stdout_bytes=${res.stdout_bytes}\n`);
  if (during) got[r.n] += `@during ${(await during).stdout}`;
}
// Host checks: after the runs, before the controls (which the listeners log).
const host = (code) => { const h = sh(subst(code, P)); return h.stdout + h.stderr; };
for (const r of rows.filter((x) => x.lang === 'host' && !x.o.late && !missing(x))) got[r.n] = host(r.code);

// --- the verdicts ---------------------------------------------------------------
const match = (s, want, desc) => ok(want.test(s), desc, `got:  ${JSON.stringify(s.slice(0, 3000))}`, `want match: ${want}`);
const trim = (s) => (s ?? '<no output: the case did not run>').replace(/\s+$/, '');
for (const r of rows) {
  const m = missing(r);
  // a shell variable of the case's name (a loop's, as $kind) given by the
  // row's option var=NAME:VALUE, so that each row's test has its own name
  const [vn, vv] = (r.o.var || '').split(':');
  const named = vn ? r.mirrors.replaceAll(`$${vn}`, vv) : r.mirrors;
  const desc = `${named} [${r.lang}, run_code.tsv:${r.line}]`;
  if (m) { skip(desc, m); continue; }
  if (r.o.late) { await sleep(100); got[r.n] = host(r.code); }
  match(trim(got[r.n]), re(r.want), desc);
  if (r.control === '-') continue;
  // The control: the same probe on the host, where the sandbox is absent.
  const prog = { bash: ['bash', '-c'], python: ['python3', '-c'], javascript: ['node', '-e'], typescript: ['node', '-e'], host: ['bash', '-c'] }[r.lang];
  const h = spawnSync(prog[0], [prog[1], subst(r.ccode, P)], { encoding: 'utf8', timeout: 30000, cwd: T,
    env: { ...process.env, HOME: home, SECRET_TOKEN: F.TOKEN, SSH_AUTH_SOCK: F.AGENT } });
  const hout = trim(h.stdout + h.stderr);
  const cre = new RegExp(`^(?:${subst(r.control, P)})$`, 's');
  if (r.o.maycontrol && !cre.test(hout))
    skip(`control: ${desc}`, `the host refuses this user the same: the control printed ${hout ? JSON.stringify(hout.slice(0, 200)) : 'nothing'}`);
  else match(hout, cre, `control: ${desc}`);
}
await c.close();
done();
process.exit();
