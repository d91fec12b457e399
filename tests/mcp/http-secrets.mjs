// http-secrets.mjs - sr-mcp-http --secrets: alice's line gives her sr-mcp
// API_TOKEN for api.test; bob (the control) has none. Alice's run gets 200
// from the test API with her placeholder; bob (api.test allowed him too)
// has no such variable and his call is 401. sandbox_info lists each one's own; the
// value is in no answer and no file of the state directories but the value
// file. Then the refusals at start, naming the line.
import { spawnSync } from 'node:child_process';
import { writeFileSync, readdirSync, readFileSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { ok, is, like, done, sc, stateDir, root, serverEnv } from './tap.mjs';
import { startGateway, connect, tokens } from './http-lib.mjs';

const REAL = process.env.SR_TEST_SECRET;
const dir = stateDir();
const value = join(dir, 'alice-api-token');
writeFileSync(value, `${REAL}\n`, { mode: 0o600 });
const secrets = join(dir, 'secrets');
writeFileSync(secrets, `# tenant, secret, value file\nalice API_TOKEN=api.test:Authorization ${value}\n`, { mode: 0o600 });
const gw = await startGateway(['--secrets', secrets, '--', '--network', 'allow', '--net-allow', 'other.test', '--net-allow', 'api.test']);
const [alice, bob] = await Promise.all([connect(gw, 'alice'), connect(gw, 'bob')]);
const answers = [];
const call = async (c, name, args) => {
  const r = await c.callTool({ name, arguments: args }, undefined, { timeout: 120000 });
  answers.push(JSON.stringify(r));
  return sc(r);
};
is(JSON.stringify((await call(alice, 'sandbox_info', {})).secrets),
  JSON.stringify([{ name: 'API_TOKEN', host: 'api.test', header: 'Authorization' }]), "alice's sandbox_info: her secret's name");
is(JSON.stringify((await call(bob, 'sandbox_info', {})).secrets || []), '[]', "bob's sandbox_info (control): none");
const code = 'curl -sS -H "Authorization: Bearer $API_TOKEN" https://api.test/api/secret; echo; echo "token=${API_TOKEN-unset}"';
const ar = await call(alice, 'run_code', { language: 'bash', code });
like(ar.stdout, /^authorized\n+token=srph_[0-9a-f]{32}\n$/, "alice's run: the placeholder is authorized (200)");
const br = await call(bob, 'run_code', { language: 'bash', code });
like(br.stdout, /^unauthorized.*\n+token=unset\n$/, "bob's run (control): no such variable, the call is 401");
ok(!answers.some((a) => a.includes(REAL)), 'the value is in no answer');
await Promise.all([alice.close(), bob.close()]);
await gw.stop();
ok(!/sk-real/.test(gw.log()), "... nor in sr-mcp-http's log");
const holding = [];
(function walk(d) {
  for (const e of readdirSync(d)) {
    const p = join(d, e), st = lstatSync(p);
    if (st.isDirectory()) walk(p);
    else if (st.isFile() && readFileSync(p).includes(REAL)) holding.push(p);
  }
})(gw.dir);
(function walk(d) {
  for (const e of readdirSync(d)) {
    const p = join(d, e);
    if (lstatSync(p).isFile() && readFileSync(p).includes(REAL)) holding.push(p);
  }
})(dir);
is(JSON.stringify(holding), JSON.stringify([value]), 'the value is in no file of the state directories but the value file');

// Refusals at start, naming the line.
function start(line, tokensLine = '', after = ['--', '--network', 'allow']) {
  const f = join(dir, 'bad-secrets'), t = join(dir, 'bad-tokens');
  writeFileSync(f, `${line}\n`, { mode: 0o600 });
  writeFileSync(t, `alice ${tokens.alice} ${tokensLine}\nbob ${tokens.bob}\n`, { mode: 0o600 });
  const r = spawnSync(join(root, 'sr-mcp/http/sr-mcp-http'), ['--listen', '127.0.0.1:0', '--tokens', t,
    '--secrets', f, '--state-dir', join(dir, 'bad-state'), ...after],
  { env: serverEnv(join(dir, 'unused')), encoding: 'utf8', timeout: 60000 });
  return `${r.status}:${r.stderr.trim()}`;
}
like(start(`alice API_TOKEN=api.test:Authorization ${value}`, '', []),
  /^111:.*bad-secrets:1: tenant alice has a secret but not --network allow/, 'a secret without --network allow: 111, naming the line');
like(start(`alice API_TOKEN=api.test:Authorization ${value}`, '--network=none'),
  /^111:.*bad-secrets:1: tenant alice has a secret but not --network allow/, "... nor when the tenant's own policy is not allow");
like(start(`carol API_TOKEN=api.test:Authorization ${value}`), /^111:.*bad-secrets:1: no tenant carol/, 'an unknown tenant: 111');
like(start('alice API_TOKEN=api.test:Authorization relative/file'), /^111:.*bad-secrets:1: expected/, 'a value file not absolute: 111');
like(start(`alice API_TOKEN=api.test:Authorization ${REAL}`), /^111:.*bad-secrets:1: expected/,
  '... a value in place of the file: 111');
ok(!start(`alice API_TOKEN=api.test:Authorization ${REAL}`).includes(REAL), '... not repeated in the error');
writeFileSync(join(dir, 'open-value'), `${REAL}\n`, { mode: 0o644 });
like(start(`alice API_TOKEN=api.test:Authorization ${join(dir, 'open-value')}`),
  /^111:.*not a regular file of mode 600/, "a value file others may read: 111 (sr-mcp's check at start)");
like(start(`alice API_TOKEN=10.0.0.1:Authorization ${value}`), /^100:/, "a secret for an address, not a name: 100 at start");
done();
