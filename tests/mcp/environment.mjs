// environment.mjs - sr-mcp's environments through the official SDK v1
// client (each structuredContent checked against its outputSchema): the
// default one's Python modules in sandbox_info, pandas in a run; then
// --environment deb12=ROOTFS (the Debian rootfs make check builds): listed
// with what it has, offered as run_code's environment, runs with the
// rootfs's own python3 and bash, read-only, the workspace shared.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, done, server, stateDir, serverEnv, sc, text, rootfsOrSkip } from './tap.mjs';

const T = { timeout: 120000 };
async function connect(args) {
  const client = new Client({ name: 'sr-test-environment', version: '1' });
  await client.connect(new StdioClientTransport({ command: server, args, stderr: 'pipe',
    env: serverEnv(stateDir()) }));
  const call = (name, a) => client.callTool({ name, arguments: a }, undefined, T);
  return { client, call };
}
const runSchema = async (client) => (await client.listTools()).tools.find((t) => t.name === 'run_code').inputSchema;

// ---- refused at start --------------------------------------------------------
const tmp = mkdtempSync(join(process.env.TMPDIR || '/tmp', 'sr-env-'));
mkdirSync(join(tmp, 'notroot'));
const start = (...a) => spawnSync(server, a, { input: '', env: serverEnv(stateDir()), encoding: 'utf8' });
let s = start('--environment', `deb=${tmp}/notroot`);
is(s.status, 100, '--environment with a directory holding no usr/ is refused at start');
like(s.stderr, /not a root file system/, 'saying why');
mkdirSync(join(tmp, 'open/usr'), { recursive: true });
chmodSync(join(tmp, 'open'), 0o755);
s = start('--environment', `open=${tmp}/open`);
is(s.status, 0, 'control: a root file system only its owner writes is taken');
chmodSync(join(tmp, 'open/usr'), 0o777);
s = start('--environment', `open=${tmp}/open`);
is(s.status, 111, 'one whose usr/ every user may write is refused at start');
like(s.stderr, /refusing --environment .*usr is writable by others .*chmod go-w/, 'saying why and what to do');
s = start('--environment', `default=${tmp}`);
is(s.status, 100, '--environment cannot rename the default');
s = start('--environment', 'Bad Name=/');
is(s.status, 100, '--environment NAME must be a-z, 0-9, _ and -');

// ---- the default environment --------------------------------------------------
let { client, call } = await connect([]);
let r = await call('sandbox_info', {});
const envs = sc(r).environments || [];
is(envs.length, 1, 'sandbox_info lists one environment when none is named');
is(envs[0]?.name, 'default', 'the default one');
const want = (process.env.SR_TEST_MODULES || '').split(' ').filter(Boolean);
is((envs[0]?.python_modules || []).join(' '), want.join(' '),
  'its python_modules are what the sandbox\'s python3 finds');
ok(want.includes('pandas') && want.includes('numpy') && want.includes('scipy'),
  'the scientific stack is there (make install-env)', want);
like(envs[0]?.python, /^3\.\d+\.\d+$/, 'and its Python version');
ok(!('environment' in ((await runSchema(client)).properties || {})),
  'run_code offers no environment argument when there is no choice');
r = await call('run_code', { language: 'python', code: 'import pandas as pd\nprint(pd.DataFrame({"a": [1, 2, 3]})["a"].sum())' });
is(sc(r).stdout, '6\n', 'pandas runs in the default environment', text(r));
r = await call('run_code', { language: 'python', environment: 'default', code: 'print(1)' });
is(sc(r).stdout, '1\n', 'environment default is accepted when there is no other');
await client.close();

// ---- a named environment -------------------------------------------------------
const D = rootfsOrSkip('an environment from a Debian rootfs');
({ client, call } = await connect(['--environment', `deb12=${D}`]));
const schema = await runSchema(client);
is(JSON.stringify(schema.properties?.environment?.enum), '["default","deb12"]',
  'run_code offers environment: default and the named one');
r = await call('sandbox_info', {});
const deb = (sc(r).environments || []).find((e) => e.name === 'deb12');
ok(deb && deb.default === false, 'sandbox_info lists the named environment', sc(r).environments);
like(deb?.python, /^3\.\d+\.\d+$/, 'with its Python version');
like(deb?.os, /Debian/, 'and its OS');
ok(deb && !(deb.python_modules || []).includes('numpy'),
  'and its modules: minbase has no numpy (the probe ran in the rootfs)', deb);
ok((sc(r).environments || [])[0]?.python_modules?.includes('numpy'),
  'control: the default environment has numpy');

const code = 'import sys, os\nprint(sys.executable, sys.version.split()[0])\n' +
  'try:\n    import numpy\n    print("numpy yes")\nexcept ImportError:\n    print("numpy no")\n' +
  'print("gcc", os.path.exists("/usr/bin/gcc"))\n' +
  'open("/workspace/made-in-deb12", "w").write("x")\n' +
  'try:\n    open("/usr/lib/planted", "w")\nexcept OSError as e:\n    print("write", e.strerror)\n';
r = await call('run_code', { language: 'python', environment: 'deb12', workspace_id: 'shared', code });
is(sc(r).status, 'succeeded', 'the python runner works in the environment', text(r));
like(sc(r).stdout, new RegExp(`/usr/bin/python3 ${deb?.python?.replace(/\./g, '\\.')}`), 'with the rootfs\'s python3');
like(sc(r).stdout, /numpy no/, 'whose modules are the rootfs\'s');
like(sc(r).stdout, /gcc False/, 'the host\'s /usr is not there');
like(sc(r).stdout, /write Read-only file system/, 'the rootfs is read-only');
r = await call('run_code', { language: 'python', workspace_id: 'shared', code });
like(sc(r).stdout, /numpy yes/, 'control: the same code in the default environment has numpy');
like(sc(r).stdout, /gcc True/, 'control: and the host\'s /usr');
r = await call('run_code', { language: 'bash', environment: 'deb12', workspace_id: 'shared',
  code: 'ls /workspace; . /etc/os-release; echo "$ID"' });
like(sc(r).stdout, /made-in-deb12/, 'the bash runner works there, and the workspace is shared');
ok(!('node' in (deb || {})), 'sandbox_info says the rootfs has no Node.js (minbase)', deb);
r = await call('run_code', { language: 'javascript', environment: 'deb12', code: 'console.log(1)' });
ok(r.isError && /deb12 has no interpreter for javascript/.test(text(r)) && /sandbox_info/.test(text(r)),
  'javascript there is an error that says why and where to look', text(r));
r = await call('run_code', { language: 'javascript', code: 'console.log(1)' });
is(sc(r).stdout, '1\n', 'control: javascript runs in the default environment');
let err = null;
try { r = await call('run_code', { language: 'python', environment: 'nope', code: 'print(1)' }); } catch (e) { err = e; }
const said = err ? err.message : text(r);
ok((err?.code === -32602 || r.isError) && /environment must be one of: default, deb12/.test(said) &&
  /sandbox_info/.test(said), 'an unknown environment is refused, naming those there are', said);
await client.close();
done();
