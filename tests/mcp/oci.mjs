// oci.mjs - environments from OCI images through the official SDK v1
// client (tests/89-mcp-oci.t builds the images): --environment
// img=oci:LAYOUT and tar=oci:SAVE.tar, both from the tests' Debian root
// with a second layer that removes a file, makes a directory opaque and
// adds /app and /opt/tool; the image's Env applied (what sr-mcp refuses
// left out), sandbox_info listing ref, digest, env, workdir, user.
// Arguments: STATE LAYOUT TAR DIGEST.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, done, server, serverEnv, sc, text } from './tap.mjs';

const [state, layout, tar, digest] = process.argv.slice(2);
const T = { timeout: 180000 };
const client = new Client({ name: 'sr-test-oci', version: '1' });
await client.connect(new StdioClientTransport({ command: server, stderr: 'pipe',
  args: ['--environment', `img=oci:${layout}`, '--environment', `tar=oci:${tar}`],
  env: serverEnv(state) }));
const call = (name, a) => client.callTool({ name, arguments: a }, undefined, T);

let r = await call('sandbox_info', {});
const envs = sc(r).environments || [];
for (const name of ['img', 'tar']) {
  const e = envs.find((x) => x.name === name) || {};
  const im = e.image || {};
  like(e.python, /^3\.\d+\.\d+$/, `${name}: sandbox_info probed the image's Python`);
  is(im.digest, name === 'img' ? digest : im.digest, `${name}: the image's digest`);
  like(im.digest, /^sha256:[0-9a-f]{64}$/, `${name}: a sha256 digest`);
  is(im.ref, name === 'img' ? 'test' : 'test:1', `${name}: its reference`);
  is(`${im.workdir}:${im.user}`, '/app:1000', `${name}: WorkingDir and User listed`);
  ok((im.env || []).includes('IMG_VAR=hello'), `${name}: its Env listed`, im.env);
  ok(!(im.env || []).some((v) => /^(LD_PRELOAD|PYTHONPATH|HOME)=/.test(v)),
    `${name}: without LD_PRELOAD, PYTHONPATH, HOME`, im.env);
  ok((im.env_dropped || []).includes('PYTHONPATH') && (im.env_dropped || []).includes('HOME'),
    `${name}: what was dropped is said`, im.env_dropped);
  const m = im.mounted || [];
  ok(m.includes('/app') && m.includes('/opt') && !m.some((d) => /^\/(usr|etc|var|home|tmp|proc)$/.test(d)),
    `${name}: its other top-level directories mounted (not those the jail has)`, m);
}

const code = 'import os, subprocess\n' +
  'print("var", os.environ.get("IMG_VAR"), os.environ.get("CALL_VAR"))\n' +
  'print("slim", os.environ.get("SLIM"))\n' +
  'print("pythonpath", os.environ.get("PYTHONPATH"))\n' +
  'print("home", os.environ.get("HOME"))\n' +
  'print("base32", os.path.exists("/usr/bin/base32"), sorted(os.listdir("/usr/share/doc")))\n' +
  'print("app", open("/app/main.py").read().strip(), os.getcwd())\n' +
  'print("opt", subprocess.run(["hi"], capture_output=True, text=True).stdout.strip())\n' +
  'try:\n    open("/app/planted", "w")\nexcept OSError as e:\n    print("write", e.strerror)\n';
for (const name of ['img', 'tar']) {
  r = await call('run_code', { language: 'python', environment: name, code });
  const out = sc(r).stdout || '';
  is(sc(r).status, 'succeeded', `${name}: Python runs in the image`, text(r));
  like(out, /^var hello None$/m, `${name}: with the image's Env`);
  like(out, /^slim 1$/m, `${name}: the image's /usr/local/bin/python3 first, as python:3.12-slim has it`);
  like(out, /^pythonpath \/run\/sr\/python:/m, `${name}: the runner's PYTHONPATH, not the image's`);
  like(out, /^home \/home\/sandbox$/m, `${name}: the jail's HOME, not the image's`);
  like(out, /^base32 False \['only'\]$/m, `${name}: the second layer's whiteout and opaque directory`);
  like(out, /^app print\(42\) \/workspace$/m, `${name}: /app from the image, the run in /workspace`);
  like(out, /^opt hi from opt$/m, `${name}: /opt from the image, found on the image's PATH`);
  like(out, /^write Read-only file system$/m, `${name}: the image's directories are read-only`);
}
r = await call('run_code', { language: 'python', environment: 'img', code,
  env: { IMG_VAR: 'call', CALL_VAR: 'x' } });
like(sc(r).stdout, /^var call x$/m, 'the call\'s env wins over the image\'s');
r = await call('run_code', { language: 'python', environment: 'img', session: true, workspace_id: 'sess',
  code: 'import os\nprint(os.environ.get("IMG_VAR"), os.path.exists("/app/main.py"), os.path.exists("/usr/bin/base32"))' });
is(sc(r).stdout, 'hello True False\n', 'a session\'s interpreter in the image has its Env, /app and its layers', text(r));
r = await call('restart_session', { workspace_id: 'sess', language: 'python' });
ok(!r.isError, 'restart_session of that session', text(r));
r = await call('run_code', { language: 'python', environment: 'img', session: true, workspace_id: 'sess',
  code: 'import os\nprint(os.environ.get("IMG_VAR"), os.path.exists("/app/main.py"), os.path.exists("/usr/bin/base32"))' });
is(sc(r).stdout, 'hello True False\n', 'restarted, it still has the image\'s Env and /app', text(r));
r = await call('run_code', { language: 'python', code });
like(sc(r).stdout, /^var None None$/m, 'control: the default environment has not the image\'s Env');
like(sc(r).stdout, /^base32 True/m, 'control: and has /usr/bin/base32');
await client.close();
done();
