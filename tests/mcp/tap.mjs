// tap.mjs - TAP output and the sr-mcp under test, for the MCP client tests.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

let n = 0, failed = 0;
export function ok(cond, desc, ...diag) {
  n++;
  console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${desc}`);
  if (!cond) {
    failed++;
    for (const d of diag) console.error(String(typeof d === 'string' ? d : JSON.stringify(d)).replace(/^/gm, '# '));
  }
  return cond;
}
export const is = (got, want, desc) => ok(got === want, desc, `got:  ${JSON.stringify(got)}`, `want: ${JSON.stringify(want)}`);
export const like = (got, re, desc) => ok(re.test(String(got)), desc, `got:  ${JSON.stringify(got)}`, `want match: ${re}`);
export function skip(desc, why) { n++; console.log(`ok ${n} - ${desc} # SKIP ${why}`); }
export function done() { console.log(`1..${n}`); process.exitCode = failed ? 1 : 0; }
export function diag(s) { console.log(String(s).replace(/^/gm, '# ')); }

// The Debian rootfs make check builds (tests/lib.sh, rootfs_env), and
// need, a file the test wants in it (as 'usr/bin/apt-get'), if any.
// Without them: a TAP skip of what, saying why, and the test ends there.
export function rootfsOrSkip(what, need) {
  const D = process.env.SR_TEST_ROOTFS;
  const why = !D ? process.env.SR_TEST_ROOTFS_WHY || 'no rootfs' :
    need && !existsSync(join(D, need)) ? `the test environment has no ${basename(need)}` : null;
  if (why) {
    skip(what, why);
    done();
    process.exit();
  }
  return D;
}

// The server under test, with a state directory of its own.
export const root = process.env.SR_ROOT;
export const server = join(root, 'sr-mcp/sr-mcp');
export function stateDir() {
  const d = mkdtempSync(join(process.env.TMPDIR || tmpdir(), 'sr-mcp-test.'));
  process.on('exit', () => rmSync(d, { recursive: true, force: true }));
  return d;
}
// Under SAN=address the tools carry ASan, whose shadow memory no memory
// rlimit fits: runs get no memory limit then (tests of it skip).
export const asan = /address/.test(process.env.SAN || '');
export function serverEnv(state, extra = {}) {
  return { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', SR_MCP_STATE_DIR: state,
    ...(asan ? { SR_MCP_MEMORY: 'off' } : {}), ...extra };
}
// A tool result's structuredContent, or what went wrong.
export const sc = (r) => (r && r.structuredContent) || {};
export const text = (r) => ((r && r.content) || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
export const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

// Until cond() (maybe async) holds, for at most secs seconds: whether it did.
export async function until(cond, secs) {
  for (let i = 0; i < secs * 10; i++) {
    if (await cond()) return true;
    await sleep(100);
  }
  return !!(await cond());
}

// A client named name on a new sr-mcp of state dir state (extra: more of
// its environment), and call(tool, args), each call bounded by timeout ms.
export async function stdioClient(Client, Transport, state, name, extra = {}, timeout = 180000) {
  const client = new Client({ name, version: '1' });
  await client.connect(new Transport({ command: server, args: [], stderr: 'pipe', env: serverEnv(state, extra) }));
  const call = (t, args) => client.callTool({ name: t, arguments: args }, undefined, { timeout });
  return { client, call };
}
