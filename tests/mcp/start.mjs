// start.mjs - what a client sees of a server that cannot start (driven by
// tests/89-mcp-start.t): the official SDK client's connect fails at once
// ("Connection closed", never a hang or a half handshake), and the
// server's stderr, which Claude Desktop keeps as mcp-server-NAME.log,
// holds the one line that says why. Control: the same with a runner.
import { mkdtempSync, mkdirSync, copyFileSync, chmodSync, rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, done, server, root, stateDir, serverEnv } from './tap.mjs';

async function start(runners) {
  const transport = new StdioClientTransport({ command: server, args: ['--runners', runners],
    env: serverEnv(stateDir()), stderr: 'pipe' });
  let err = '';
  transport.stderr.on('data', (d) => { err += d; });
  const client = new Client({ name: 'start', version: '1' });
  const timer = new Promise((res) => setTimeout(() => res('timed out'), 10000));
  const r = await Promise.race([client.connect(transport).then(() => 'connected', (e) => `rejected: ${e.message}`), timer]);
  await client.close().catch(() => {});
  return { r, err };
}
const dir = mkdtempSync(`${process.env.TMPDIR || '/tmp'}/sr-start.`);
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
mkdirSync(`${dir}/empty`);
const bad = await start(`${dir}/empty`);
like(bad.r, /^rejected: .*Connection closed/, 'a server with no runner: the client\'s connect fails at once (connection closed)');
like(bad.err, /^sr-mcp: fatal: no runner in the runners directory .*--runners or SR_MCP_RUNNERS.*\n$/, '... and its log is the one line saying why');
is(bad.err.split('\n').length, 2, '... one line, standing alone');
mkdirSync(`${dir}/one`);
copyFileSync(`${root}/sr-mcp/runners/bash`, `${dir}/one/bash`);
chmodSync(`${dir}/one/bash`, 0o755);
const good = await start(`${dir}/one`);
is(good.r, 'connected', 'control: with a runner the same client connects');
done();
