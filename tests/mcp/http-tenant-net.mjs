// http-tenant-net.mjs - a tenant's own network policy, from its line in
// the tokens file: alice gets --network allow with api.test allowed, bob
// the policy after -- (allow, other.test alone). sandbox_info says each
// one's; a run of alice's is refused other.test (bob's host) by sr-net,
// naming her allow list, and not api.test; bob's run, the reverse. Then
// the tokens file's refusals: a word that is not a network option, a
// --net-allow without --network, a host sr-mcp rejects.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ok, is, like, done, sc, stateDir, root, serverEnv } from './tap.mjs';
import { startGateway, connect, tokens } from './http-lib.mjs';

const dir = stateDir();
const file = join(dir, 'tenant-tokens');
writeFileSync(file, `# alice: her own policy\nalice ${tokens.alice} --network=allow --net-allow=api.test --net-deny=evil.test\n` +
  `bob ${tokens.bob}\n`, { mode: 0o600 });
const gw = await startGateway(['--tokens', file, '--', '--network', 'allow', '--net-allow', 'other.test']);
const [alice, bob] = await Promise.all([connect(gw, 'alice'), connect(gw, 'bob')]);

const info = async (c) => sc(await c.callTool({ name: 'sandbox_info', arguments: {} }));
const [ai, bi] = [await info(alice), await info(bob)];
is(JSON.stringify([ai.network, ai.network_allow]), JSON.stringify(['allow', ['api.test', '-evil.test']]),
  "alice's sandbox_info: her own policy from the tokens file, not the one after --");
is(JSON.stringify([bi.network, bi.network_allow]), JSON.stringify(['allow', ['other.test']]),
  "bob's sandbox_info (control): the policy after --");

// What sr-net refused in a run that tries both hosts (no answer is needed:
// the refusal is sr-net's, before any connection is made).
async function refused(c) {
  const r = await c.callTool({ name: 'run_code', arguments: { language: 'bash',
    code: 'for h in api.test other.test evil.test; do curl -sS --max-time 20 -o /dev/null http://$h/; done; true' } },
  undefined, { timeout: 120000 });
  const denied = ((sc(r).network || {}).denied || []);
  return Object.fromEntries(denied.map((d) => [d.host, d.why]));
}
const [ad, bd] = [await refused(alice), await refused(bob)];
like(ad['other.test'], /not in the allow list/, "alice's run: other.test (bob's host) refused by her allow list");
ok(!/not in the allow list/.test(ad['api.test'] || ''), "... api.test not refused as outside it", JSON.stringify(ad));
like(ad['evil.test'], /denied by/, '... evil.test refused by her --net-deny');
like(bd['api.test'], /not in the allow list/, "bob's run (control): api.test, alice's host, refused to him");
ok(!/not in the allow list/.test(bd['other.test'] || ''), '... his own other.test not refused as outside it', JSON.stringify(bd));
await Promise.all([alice.close(), bob.close()]);
await gw.stop();

// Refusals at start: the tokens file's line names what is wrong.
function start(line) {
  const f = join(dir, 'bad-tokens');
  writeFileSync(f, `alice ${tokens.alice} ${line}\n`, { mode: 0o600 });
  const r = spawnSync(join(root, 'sr-mcp/http/sr-mcp-http'), ['--listen', '127.0.0.1:0', '--tokens', f,
    '--state-dir', join(dir, 'bad-state')], { env: serverEnv(join(dir, 'unused')), encoding: 'utf8', timeout: 60000 });
  return `${r.status}:${r.stderr.trim()}`;
}
like(start('--host-dir=/tmp'), /^111:.*bad-tokens:1: after the token of tenant alice, expected --network=MODE/,
  'a word after the token that is not a network option: 111, naming the line');
like(start('--net-allow=api.test'), /^111:.*tenant alice has --net-allow or --net-deny without --network=allow/,
  '--net-allow without --network: 111');
like(start('--network=allow --net-allow=a/b'), /^100:.*unable to start sr-mcp/,
  "a host sr-mcp rejects: 100, in sr-mcp's words, at start");
like(start('--network=allow --net-allow api.test'), /^111:/, 'an option and its value as two words: 111');
done();
