// session-tools.mjs - session_info, restart_session, close_session; the
// sessions in sandbox_info, list_workspaces and list_jobs; delete_workspace closing
// its sessions; and all of it bound to the client: another client (another
// tenant) neither sees nor closes nor restarts this one's sessions.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, skip, done, server, stateDir, serverEnv, sc, text } from './tap.mjs';

const T = { timeout: 120000 };
const state = stateDir();
async function connect(name, args = []) {
  const client = new Client({ name, version: '1' });
  await client.connect(new StdioClientTransport({ command: server, args, stderr: 'pipe',
    env: serverEnv(state, {}) }));
  return { client, call: (n, args = {}) => client.callTool({ name: n, arguments: args }, undefined, T) };
}
const a = await connect('sr-test-tenant-a'), b = await connect('sr-test-tenant-b');
const py = (c, code, ws = 'w1') => c.call('run_code', { language: 'python', workspace_id: ws, session: true, code });
const mine = (r, ws, lang = 'python') => (sc(r).sessions || []).filter((s) => s.workspace_id === ws && s.language === lang);

let r = await a.call('session_info');
is((sc(r).sessions || []).length, 0, 'no sessions at first', text(r));
is(sc(r).session_idle_s, 1800, 'session_info gives the idle limit (30 min by default)');
r = await py(a, 'x = 1\nbig = bytearray(20 << 20)');
is(sc(r).status, 'succeeded', 'client A starts a python session in w1', text(r));
await py(a, 'x');
r = await a.call('session_info');
const s = mine(r, 'w1')[0] || {};
is(s.calls, 2, 'session_info: the session and its calls', text(r));
ok(s.memory_bytes > 20 << 20, 'its memory (the interpreter holds 20 MiB)', JSON.stringify(s));
ok(s.age_s >= 0 && s.idle_s >= 0 && /^\d{4}-/.test(s.started_at || ''), 'its age, idle time, start');
ok(/^[0-9a-f]{32}$/.test(s.interpreter_job_id || ''), 'its interpreter job');
r = await a.call('sandbox_info');
is(mine(r, 'w1').length, 1, 'sandbox_info lists the session');
is(sc(r).caps?.session_idle_s, 1800, 'and session_idle_s');
r = await a.call('list_workspaces');
const w1 = (sc(r).workspaces || []).find((w) => w.workspace_id === 'w1') || {};
is((w1.sessions || []).map((x) => x.language).join(), 'python', 'list_workspaces: w1 with its session', text(r));
like(text(r), /w1 .*sessions: python/, 'named in its text too');

// list_jobs: a session call's language is its session's
r = await a.call('list_jobs');
const last = (sc(r).jobs || [])[0] || {};
is(last.language, 'python', "list_jobs gives a session call its session's language", JSON.stringify(last));
is(last.workspace_id, 'w1', 'and its workspace');

// another tenant: sees none, closes none, restarts none of A's
r = await b.call('session_info');
is((sc(r).sessions || []).length, 0, 'another client sees none of them', text(r));
r = await b.call('sandbox_info');
is((sc(r).sessions || []).length, 0, 'nor in sandbox_info');
r = await b.call('list_workspaces');
is(((sc(r).workspaces || []).find((w) => w.workspace_id === 'w1') || {}).sessions?.length, 0, 'nor in list_workspaces');
r = await b.call('close_session', { workspace_id: 'w1', language: 'python' });
is(sc(r).closed, false, "another client's close_session finds no session to close", text(r));
r = await b.call('restart_session', { workspace_id: 'w1', language: 'python' });
is(sc(r).restarted, false, "another client's restart_session ends none of A's", text(r));
r = await py(a, 'x');
is(sc(r).stdout, '1\n', "A's session is untouched", text(r));
is(sc(r).session?.new, false, 'the same one');

// restart_session: a fresh interpreter at once
r = await a.call('restart_session', { workspace_id: 'w1', language: 'python' });
is(sc(r).restarted, true, 'restart_session ends the live session', text(r));
ok(/^[0-9a-f]{32}$/.test(sc(r).interpreter_job_id || '') && sc(r).interpreter_job_id !== s.interpreter_job_id, 'and starts another');
r = await py(a, 'x');
like(sc(r).stderr, /NameError/, 'whose state is new', text(r));
is(sc(r).session?.interpreter_job_id, (await a.call('session_info')).structuredContent.sessions.find((x) => x.workspace_id === 'w1').interpreter_job_id, 'the call ran in the restarted interpreter');

// close_session
r = await a.call('close_session', { workspace_id: 'w1', language: 'python' });
is(sc(r).closed, true, 'close_session closes it', text(r));
r = await a.call('session_info', { workspace_id: 'w1' });
is(mine(r, 'w1').length, 0, 'and it is no longer listed', text(r));
r = await a.call('close_session', { workspace_id: 'w1', language: 'python' });
is(sc(r).closed, false, 'closing it again: nothing to close');
r = await a.call('close_session', { workspace_id: 'w1', language: 'bash' }).catch((e) => e);
like(r.message || text(r), /language must be (python or javascript|one of: python, javascript)/, 'a language without sessions is refused');

// delete_workspace closes its sessions
r = await py(a, 'y = 2', 'w3');
is(sc(r).status, 'succeeded', 'a session in w3');
r = await a.call('delete_workspace', { workspace_id: 'w3' });
is(sc(r).deleted, true, 'w3 deleted', text(r));
r = await a.call('session_info');
is(mine(r, 'w3').length, 0, 'its session is closed with it', text(r));
r = await py(a, 'y', 'w3');
like(sc(r).stderr, /NameError/, 'a later call there starts afresh', text(r));
like(sc(r).session?.previous_state_lost || '', /workspace was deleted/, 'and says why the state went', JSON.stringify(sc(r).session));
await a.client.close();
await b.client.close();

// a session lives in the environment it was started in: restart_session
// keeps it, a call asking for another one starts a new session and says so
const rootfs = process.env.SR_TEST_ROOTFS;
if (!rootfs) {
  skip('a session in an environment', process.env.SR_TEST_ROOTFS_WHY);
} else {
  const e = await connect('sr-test-tenant-e', ['--environment', `deb=${rootfs}`]);
  // minbase has no numpy, the host has (the environments' test shows both)
  const NO_NUMPY = 'import importlib.util\nimportlib.util.find_spec("numpy") is None';
  const pe = (code, env) => e.call('run_code', { language: 'python', workspace_id: 'we', session: true, code,
    ...(env ? { environment: env } : {}) });
  r = await pe(NO_NUMPY, 'deb');
  is(sc(r).stdout, 'True\n', "a session in the environment deb runs its python (no numpy)", text(r));
  r = await e.call('restart_session', { workspace_id: 'we', language: 'python' });
  is(sc(r).restarted, true, 'restart_session', text(r));
  r = await pe(NO_NUMPY, 'deb');
  is(sc(r).stdout, 'True\n', 'the restarted session is in the same environment', text(r));
  is(sc(r).session?.new, false, 'and the next call there uses it', JSON.stringify(sc(r).session));
  r = await pe(NO_NUMPY);
  is(sc(r).stdout, 'False\n', 'a call in another environment runs there (numpy found)', text(r));
  is(sc(r).session?.new, true, 'in a new session', JSON.stringify(sc(r).session));
  like(sc(r).session?.previous_state_lost || '', /another environment/, 'saying why the state went');
  await e.client.close();
}
done();
