// verdict.mjs - a session call is "timed_out" only when the host saw its
// timeout_s pass: the interpreter's done frame says "interrupted", and the
// code, which runs in the interpreter's process, can find the channel and
// send that frame itself (forged below, with the controls: the frame does
// end the call, and a real timeout is still timed_out). And "the sandbox
// could not run the code" only when the program never started: the code
// printing a chain tool's fatal line is not it (controls: the chain made
// to fail, before sr-exec and in its exec).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, done, server, stateDir, serverEnv, sc, text } from './tap.mjs';

const T = { timeout: 120000 };
const client = new Client({ name: 'sr-test-verdict', version: '1' });
await client.connect(new StdioClientTransport({ command: server, args: [], stderr: 'pipe',
  env: serverEnv(stateDir(), {}) }));
const call = (n, args) => client.callTool({ name: n, arguments: args }, undefined, T);
const py = (code, extra = {}) => call('run_code', { language: 'python', workspace_id: 'v', session: true, code, ...extra });

let r = await py('x = 1');
is(sc(r).status, 'succeeded', 'a session', text(r));
const forge = 'import gc, time\nch = next(o for o in gc.get_objects() if type(o).__name__ == "Channel")\n' +
  'ch.send(ch.call, b"d", b"interrupted")\ntime.sleep(2)\n"slept"';
const t0 = Date.now();
r = await py(forge, { timeout_s: 30 });
const took = Date.now() - t0;
ok(took < 25000, `control: the code's own done frame ends the call (after ${took} ms, timeout_s 30)`, text(r));
ok(sc(r).status !== 'timed_out' && sc(r).limit_hit !== 'timeout' && !/interrupted at timeout_s/.test(sc(r).hint || ''),
  'forged: an "interrupted" frame sent by the code, before the timeout: not timed_out', JSON.stringify(sc(r)));
r = await py('x + 1');
// The forged frame ended the call while its code still ran: the session
// goes on, or (the keeper saw the call's work left running) it was ended
// from outside and this call says so; either way the answer is its own.
ok(sc(r).stdout === '2\n' ||
  (/NameError/.test(sc(r).stderr) && /left \d+ thread/.test(sc(r).session?.previous_state_lost || '')),
  'the next call gets its own answer (the session kept, or ended for the work left running and said)',
  JSON.stringify(sc(r)));
r = await py('import time\nwhile True: time.sleep(0.1)', { timeout_s: 1 });
is(sc(r).status, 'timed_out', 'control: a real loop past timeout_s is timed_out', text(r));
is(sc(r).limit_hit, 'timeout', 'control: limit_hit timeout');

// ---- "the sandbox could not run the code" ------------------------------------
// Said only when the program never started: sr-exec writes "exec" to the
// verdict file before its exec and closes it for the program, "exec
// failed" after a failed one. The code printing a chain tool's fatal line
// and exiting 111 or 127 is the code's failure.
for (const [code, line] of [[111, 'sr-jail: fatal: unable to bind /x: No such file or directory'],
  [127, 'sr-exec: fatal: unable to run python3: No such file or directory'],
  [111, 'sr-limit: fatal: unable to set up the cgroup: Permission denied']]) {
  r = await call('run_code', { language: 'bash', code: `echo '${line}' >&2; exit ${code}` });
  ok(sc(r).status === 'failed' && sc(r).reason !== 'sandbox' && !sc(r).error && !/not a fault of the code/.test(sc(r).hint || ''),
    `forged: "${line.slice(0, 24)}..." printed, exit ${code}: the code's failure, not the sandbox's`, JSON.stringify(sc(r)));
}
await client.close();
// controls: the shipped bash runner, made to fail in its chain
const { mkdtempSync, readFileSync, writeFileSync, chmodSync } = await import('node:fs');
const rdir = mkdtempSync(`${process.env.TMPDIR || '/tmp'}/sr-runners.`);
const bash = readFileSync(`${process.env.SR_ROOT}/sr-mcp/runners/bash`, 'utf8');
const put = (name, text) => { writeFileSync(`${rdir}/${name}`, text); chmodSync(`${rdir}/${name}`, 0o755); };
put('bash', bash);
put('noexec', bash.replace('--version ] && exec bash', '--version ] && exec echo').replace(' bash /run/sr/main.sh', ' /nonexistent-sr-prog /run/sr/main.sh'));
put('nobind', bash.replace('--version ] && exec bash', '--version ] && exec echo').replace('--bind "$SR_WORKSPACE"', '--bind /nonexistent-sr-source /x --bind "$SR_WORKSPACE"'));
const c2 = new Client({ name: 'sr-test-verdict', version: '1' });
await c2.connect(new StdioClientTransport({ command: server, args: [], stderr: 'pipe',
  env: serverEnv(stateDir(), { SR_MCP_RUNNERS: rdir }) }));
const call2 = (n, args) => c2.callTool({ name: n, arguments: args }, undefined, T);
r = await call2('run_code', { language: 'noexec', code: 'true' });
ok(sc(r).status === 'error' && sc(r).reason === 'sandbox' && /^sr-exec: fatal: unable to run \/nonexistent-sr-prog/.test(sc(r).error || ''),
  'control: the program not found by sr-exec: status error, reason sandbox, its line', JSON.stringify(sc(r)));
r = await call2('run_code', { language: 'nobind', code: 'true' });
ok(sc(r).status === 'error' && sc(r).reason === 'sandbox' && /^sr-jail: fatal: unable to bind \/nonexistent-sr-source/.test(sc(r).error || ''),
  'control: sr-jail failing before the program: status error, reason sandbox, its line', JSON.stringify(sc(r)));
r = await call2('run_code', { language: 'bash', code: "echo 'sr-jail: fatal: unable to bind /x: No such file or directory' >&2; exit 111" });
ok(sc(r).status === 'failed' && sc(r).reason !== 'sandbox', 'forged: the same line printed by code under the same runners: failed', JSON.stringify(sc(r)));
await c2.close();
done();
process.exit();
