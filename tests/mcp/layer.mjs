// layer.mjs - a workspace's layer (STATE/ws-layer/WS, where an apt
// install puts what it unpacks) is laid over an environment's root for
// that workspace's runs only: a file planted there is seen by a run of
// workspace A in the Debian environment; not by B's (the control that
// the file is the layer's, not the root's), not in the default
// environment (no --rootfs there); read-only; delete_workspace removes it.
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, done, server, stateDir, serverEnv, sc, text, rootfsOrSkip } from './tap.mjs';

const D = rootfsOrSkip('a workspace layer over an environment');
const state = stateDir();
const client = new Client({ name: 'sr-test-layer', version: '1' });
await client.connect(new StdioClientTransport({ command: server, stderr: 'pipe',
  args: ['--environment', `deb12=${D}`], env: serverEnv(state) }));
const call = (name, a) => client.callTool({ name, arguments: a }, undefined, { timeout: 120000 });
const probe = 'cat /usr/share/sr-layer-probe 2>&1; echo rc=$?; echo x > /usr/share/sr-w 2>/dev/null; echo w=$?';
const run = (ws, env) => call('run_code', { language: 'bash', workspace_id: ws, code: probe,
  ...(env ? { environment: env } : {}) });

let r = await run('wsa', 'deb12');
is(sc(r).exit_code, 0, 'workspace A runs in deb12');
ok(/rc=1/.test(sc(r).stdout), 'control: without a layer, the file is absent in A', text(r));
await run('wsb', 'deb12');
const layer = join(state, 'ws-layer', 'wsa');
mkdirSync(join(layer, 'usr/share'), { recursive: true });
writeFileSync(join(layer, 'usr/share/sr-layer-probe'), 'from-the-layer\n');
r = await run('wsa', 'deb12');
ok(/from-the-layer\nrc=0/.test(sc(r).stdout), 'with its layer, a run of A in deb12 sees the file', text(r));
ok(/w=[1-9]/.test(sc(r).stdout), 'the root stays read-only under the layer', text(r));
r = await run('wsb', 'deb12');
ok(/rc=1/.test(sc(r).stdout) && !/from-the-layer/.test(sc(r).stdout),
  'a run of workspace B does not see A\'s layer', text(r));
r = await run('wsa', null);
ok(!/from-the-layer/.test(sc(r).stdout), 'the default environment (no --rootfs) gets no layer', text(r));
r = await call('delete_workspace', { workspace_id: 'wsa' });
ok(!r.isError, 'delete_workspace A', text(r));
ok(!existsSync(layer), 'deleting the workspace deleted its layer');
ok(existsSync(join(state, 'ws-layer')), 'control: the layers directory itself stays');
await client.close();
done();
