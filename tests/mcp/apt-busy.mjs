// apt-busy.mjs - install_packages' apt waits for another install into the
// same workspace's packages only as long as its own timeout_s: here the
// layer's lock is held from outside (flock(1), as a running install holds
// it), and a call with timeout_s 3 is refused well before the installer's
// 600 s cap, failure busy, saying to try again, nothing installed.
// Control: the lock released, the same call is not refused as busy (it
// goes on to apt, and fails on the package name, which no archive has).
import { existsSync, mkdirSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, skip, done, server, stateDir, serverEnv, sc, text, until } from './tap.mjs';

const D = process.env.SR_TEST_ROOTFS;
if (!D || !existsSync(join(D, 'usr/bin/apt-get'))) {
  skip('an apt install held up by another', D ? 'the test environment has no apt-get' : process.env.SR_TEST_ROOTFS_WHY || 'no rootfs');
  done();
  process.exit();
}
const state = stateDir();
const client = new Client({ name: 'sr-test-apt-busy', version: '1' });
await client.connect(new StdioClientTransport({ command: server, stderr: 'pipe',
  args: ['--environment', `deb12=${D}`, '--network', 'install'], env: serverEnv(state) }));
const call = (a) => client.callTool({ name: 'install_packages', arguments: { manager: 'apt',
  packages: ['sr-no-such-package-zz'], workspace_id: 'wsa', environment: 'deb12', ...a } }, undefined,
  { timeout: 300000 });
const layer = join(state, 'ws-layer', 'wsa');
mkdirSync(layer, { recursive: true });
const held = () => spawnSync('flock', ['-n', layer, 'true']).status !== 0;
const holder = spawn('flock', ['-o', layer, 'sleep', '3600'], { stdio: 'ignore' });
ok(await until(held, 60), 'the layer is locked from outside (as an install running holds it)');
const t0 = Date.now();
let r = await call({ timeout_s: 3 });
const took = (Date.now() - t0) / 1000;
is(sc(r).failure, 'busy', 'an install with timeout_s 3 is refused, failure busy', text(r));
ok(r.isError && held(), `within its timeout_s: answered while the lock is still held, not after waiting for it (${took.toFixed(1)} s)`);
like(sc(r).error || text(r), /another install into this workspace's packages.*Try again when it is done/, 'saying another install runs, and to try again');
holder.kill();
ok(await until(() => !held(), 60), 'the lock released');
r = await call({ timeout_s: 120 });
ok(sc(r).failure !== 'busy', `control: the lock released, the same call is not refused as busy (failure ${sc(r).failure})`, text(r).slice(0, 600));
await client.close();
done();
