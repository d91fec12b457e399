// apt-quota.mjs - a run's workspace quota is the quota less what the
// workspace's layer (where apt installs) holds: the layer is read-only in
// runs, so the run's own writes get the rest. A layer is planted here as
// an install leaves one (tests/mcp/layer.mjs does the same), no archive
// needed. Control: before the layer, the same write fits; workspace B,
// with no layer, still fits it after; a smaller write still fits in A.
import { mkdirSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, done, server, stateDir, serverEnv, sc, text, rootfsOrSkip } from './tap.mjs';

const D = rootfsOrSkip('the quota of a workspace with a layer');
const state = stateDir();
const client = new Client({ name: 'sr-test-apt-quota', version: '1' });
await client.connect(new StdioClientTransport({ command: server, stderr: 'pipe',
  args: ['--environment', `deb12=${D}`, '--workspace-quota', '1M'], env: serverEnv(state) }));
const call = (name, a) => client.callTool({ name, arguments: a }, undefined, { timeout: 120000 });
const write = (ws, kib) => call('run_code', { language: 'bash', workspace_id: ws, environment: 'deb12',
  code: `head -c ${kib * 1024} /dev/urandom > f 2>&1 && sync && echo wrote=ok || echo wrote=no; rm -f f` });
const fits = (r) => /wrote=ok/.test(sc(r).stdout) && !r.isError && sc(r).status !== 'quota_exceeded';

let r = await write('wsa', 700);
ok(fits(r), 'control: before a layer, a run of A writes 700 KiB under the 1 MiB quota', text(r));
const layer = join(state, 'ws-layer', 'wsa');
mkdirSync(join(layer, 'usr/share'), { recursive: true });
writeFileSync(join(layer, 'usr/share/sr-big'), randomBytes(600 * 1024));
r = await write('wsa', 700);
ok(!fits(r), "with a 600 KiB layer, the same write is over A's quota", text(r));
r = await write('wsa', 200);
ok(fits(r), 'a write that fits beside the layer still does', text(r));
r = await write('wsb', 700);
ok(fits(r), 'workspace B, with no layer, still writes 700 KiB', text(r));
await client.close();
done();
