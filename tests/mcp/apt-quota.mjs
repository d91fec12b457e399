// apt-quota.mjs - a run's workspace quota is the quota less what the
// workspace's layer (where apt installs) holds: the layer is read-only in
// runs, so the run's own writes get the rest. A layer is planted here as
// an install leaves one (tests/mcp/layer.mjs does the same), no archive
// needed. Control: before the layer, the same write fits; workspace B,
// with no layer, still fits it after; a smaller write still fits in A.
// Then the layer's size record: read by runs (a record saying more or
// less moves the quota), measured again when missing or unreadable; a
// session's quota less the layer too; the record gone with the workspace.
import { existsSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
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

// The layer's size is recorded (STATE/ws-layer/WS.size), and runs read the
// record, not the layer: a record saying more or less moves the quota.
const rec = `${layer}.size`;
const recorded = existsSync(rec) ? readFileSync(rec, 'utf8') : '';
ok(/^\d+\n$/.test(recorded) && +recorded >= 600 * 1024 && +recorded < 800 * 1024,
  'a layer with no record (an older sr-mcp\'s) is measured once and its size recorded', recorded);
writeFileSync(rec, `${100 << 20}\n`);
r = await write('wsa', 200);
ok(!fits(r), 'a record saying the layer holds 100 MiB: a 200 KiB write is over the quota (the record is read)', text(r));
writeFileSync(rec, '0\n');
r = await write('wsa', 700);
ok(fits(r), 'control: a record saying 0 bytes: the 700 KiB write fits beside the real 600 KiB layer', text(r));
for (const bad of ['', 'lots\n', '-5\n', '99999999999999999999\n']) {
  writeFileSync(rec, bad);
  r = await write('wsa', 700);
  ok(!fits(r) && readFileSync(rec, 'utf8') === recorded,
    `a record that does not read (${JSON.stringify(bad)}) is measured again and rewritten`, text(r));
}
unlinkSync(rec);
r = await write('wsa', 700);
ok(!fits(r) && existsSync(rec), 'a record removed: measured again (the write is over), recorded again', text(r));

// A session's quota is the quota less the layer too (its own path,
// sr-jail's tmpfs sized to what is left).
const sess = (ws, kib) => call('run_code', { language: 'python', workspace_id: ws, environment: 'deb12',
  session: true, code: `import os\ntry:\n  with open('g', 'wb') as f:\n    f.write(os.urandom(${kib} * 1024))\n  print('wrote=ok')\n` +
  `except OSError as e:\n  print('wrote=no', e)\nos.remove('g')\n` });
r = await sess('wsb', 700);
ok(fits(r), 'control: a session of B, with no layer, writes 700 KiB', text(r));
r = await sess('wsa', 700);
ok(!fits(r), "a session of A, beside its 600 KiB layer, cannot write 700 KiB", text(r));
r = await sess('wsa', 200);
ok(fits(r), 'but still writes 200 KiB', text(r));

// The workspace deleted: its layer's record too.
r = await call('delete_workspace', { workspace_id: 'wsa' });
ok(!r.isError && !existsSync(rec) && !existsSync(layer), "delete_workspace removes the layer and its size record", text(r));
await client.close();

// A layer the walk cannot measure whole (over its 200,000 entries: empty
// files, which take no blocks, so an under-count would give the run
// nearly the whole quota) leaves a run no room, and is not recorded.
// Control: the same layer measured whole (half the files) leaves room.
// (A server of its own, with a 64 MiB quota: the directories of 200,000
// names take some MiB themselves.)
const state3 = stateDir();
const c3 = new Client({ name: 'sr-test-apt-quota-many', version: '1' });
await c3.connect(new StdioClientTransport({ command: server, stderr: 'pipe',
  args: ['--environment', `deb12=${D}`, '--workspace-quota', '64M'], env: serverEnv(state3) }));
const write3 = (ws, kib) => c3.callTool({ name: 'run_code', arguments: { language: 'bash', workspace_id: ws,
  environment: 'deb12', code: `head -c ${kib * 1024} /dev/urandom > f 2>&1 && sync && echo wrote=ok || echo wrote=no; rm -f f` } },
  undefined, { timeout: 120000 });
const many = join(state3, 'ws-layer', 'wsc');
mkdirSync(join(many, 'm'), { recursive: true });
for (let d = 0; d < 201; d++) {
  mkdirSync(join(many, 'm', `${d}`));
  for (let f = 0; f < 1000; f++) writeFileSync(join(many, 'm', `${d}`, `${f}`), '');
}
let t1 = Date.now();
r = await write3('wsc', 100);
ok(!fits(r) && !existsSync(`${many}.size`),
  `a layer of over 200,000 entries (not measured whole): a 100 KiB write is over the quota, no record made (${Date.now() - t1} ms)`, text(r));
for (let d = 100; d < 201; d++) rmSync(join(many, 'm', `${d}`), { recursive: true });
t1 = Date.now();
r = await write3('wsc', 100);
const t2 = Date.now() - t1;
ok(fits(r) && existsSync(`${many}.size`), `control: with 100,100 entries it is measured whole and recorded, and the write fits (${t2} ms)`, text(r));
t1 = Date.now();
r = await write3('wsc', 100);
ok(fits(r), `the next run reads the record (${Date.now() - t1} ms, against ${t2} ms measuring)`, text(r));

await c3.close();
done();
