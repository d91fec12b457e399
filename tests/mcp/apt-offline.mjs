// apt-offline.mjs - install_packages' apt with no archive needed:
// sandbox_info says which environments apt installs into (apt: true for
// the Debian test environment, false for the host's and for a root with
// no apt-get), and under --network none an apt install is refused naming
// what to set, while the same server's pip refusal speaks of pip (the
// refusal is apt's own). Control: with --network install the same call
// gets past the policy (its error, if any, is not the policy's).
import { mkdtempSync, mkdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, done, server, stateDir, serverEnv, sc, text, rootfsOrSkip } from './tap.mjs';

const D = rootfsOrSkip('apt without the archive', 'usr/bin/apt-get');
const bare = realpathSync(mkdtempSync(join(process.env.TMPDIR || tmpdir(), 'sr-apt-bare.')));
mkdirSync(join(bare, 'usr/bin'), { recursive: true });
const open = async (net) => {
  const client = new Client({ name: 'sr-test-apt-offline', version: '1' });
  await client.connect(new StdioClientTransport({ command: server, stderr: 'pipe',
    args: ['--environment', `deb12=${D}`, '--environment', `bare=${bare}`, '--network', net],
    env: serverEnv(stateDir()) }));
  return { client, call: (name, a) => client.callTool({ name, arguments: a }, undefined, { timeout: 300000 }) };
};
const policy = /network policy is none/;

const off = await open('none');
let r = await off.call('sandbox_info', {});
const envs = sc(r).environments || [];
const env = (n) => envs.find((e) => e.name === n) || {};
is(env('deb12').apt, true, 'sandbox_info: the Debian environment has apt: true');
like(env('deb12').note, /with manager apt Debian packages into a workspace's own layer/, 'and its note says apt installs into a workspace layer');
is(env('bare').apt, false, 'a root with no apt-get has apt: false');
ok(!/manager apt/.test(env('bare').note || ''), 'and its note does not offer apt', env('bare').note);
is(envs.find((e) => e.default).apt, false, "the host's environment has apt: false");

r = await off.call('install_packages', { workspace_id: 'wa', manager: 'apt', packages: ['figlet'], environment: 'deb12' });
ok(r.isError && policy.test(text(r)), 'under --network none, an apt install is refused', text(r));
like(text(r), /environment's mirrors/, "naming the environment's mirrors");
like(text(r), /--network install/, 'and what the administrator sets');
ok(!/pip/.test(text(r)), 'its own words, not pip\'s', text(r));
r = await off.call('install_packages', { workspace_id: 'wa', manager: 'pip', packages: ['six'] });
ok(r.isError && policy.test(text(r)) && /wheels/.test(text(r)), "control: the same server's pip refusal is pip's", text(r));
r = await off.call('run_code', { language: 'bash', workspace_id: 'wa', environment: 'deb12', code: 'ls /var/lib/sr 2>&1; echo rc=$?' });
like(sc(r).stdout, /rc=2/, 'nothing was installed: the workspace has no layer');
await off.client.close();

const on = await open('install');
r = await on.call('install_packages', { workspace_id: 'wb', manager: 'apt', packages: ['sr-no-such-package-xyz'],
  environment: 'deb12', timeout_s: 120 });
ok(!policy.test(text(r)), 'control: with --network install, the same call gets past the policy', text(r));
await on.client.close();
done();
