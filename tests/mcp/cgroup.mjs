// cgroup.mjs - sr-mcp where the user has a delegated cgroup v2, through the
// official SDK client: sandbox_info says the memory is bounded by the
// cgroup, memory_mb is the whole run's (shared memory counts, and so do
// several processes together), and a run over it ends with status oom,
// reason memory; a session killed by it loses its state and says why.
// Run by tests/89-mcp-cgroup.t.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, skip, done, server, stateDir, serverEnv, sc, text } from './tap.mjs';

const client = new Client({ name: 'sr-test-cgroup', version: '1' });
await client.connect(new StdioClientTransport({ command: server, args: [], stderr: 'pipe',
  env: serverEnv(stateDir()) }));
const call = (name, args) => client.callTool({ name, arguments: args }, undefined, { timeout: 300000 });

let r = await call('sandbox_info', {});
const nocg = process.env.SR_TEST_NOCGROUP;
if (nocg) {
  is(sc(r).memory_enforcement, 'rlimit data', 'without a delegated cgroup: memory_enforcement is rlimit data');
  like(sc(r).memory_note, /each process's private memory only.*not counted/, 'memory_note: per process, shared memory not counted');
  for (const d of ['memory_enforcement is cgroup', 'the runs under memory_mb (7 cases)', 'a session killed for memory (3 cases)'])
    skip(d, nocg);
  await client.close();
  done();
  process.exit();
}
is(sc(r).memory_enforcement, 'cgroup', 'sandbox_info: memory_enforcement is cgroup');
like(sc(r).memory_note, /whole run/, 'memory_note: memory_mb bounds the whole run');

// hold MIB: MIB MiB of shared memory (Python's anonymous mmap is
// MAP_SHARED, which no rlimit counts), then hold it a moment.
const hold = (mib, secs) => `python3 -c 'import mmap, time
m = mmap.mmap(-1, ${mib} << 20); b = bytes([1]) * (1 << 20)
for _ in range(${mib}): m.write(b)
print("held", flush=True); time.sleep(${secs})'`;
const run = (code, mem) => call('run_code', { language: 'bash', code, memory_mb: mem, timeout_s: 120 });

r = await run(hold(64, 0), 128);
is(sc(r).status, 'succeeded', 'control: 64 MiB of shared memory under memory_mb 128 runs', sc(r));
r = await run(hold(512, 0), 128);
is(`${sc(r).status} ${sc(r).reason} ${sc(r).limit_hit}`, 'oom memory memory',
  '512 MiB of shared memory under memory_mb 128: status oom, reason memory, limit_hit memory', sc(r));
like(sc(r).hint, /memory_mb/, 'the hint says what to do (memory_mb)');
like(text(r), /stopped by the memory limit/, 'the text says so too');

// Two processes of 80 MiB each, at once: within the limit one by one, not
// together.
r = await run(`${hold(80, 0)}`, 128);
is(sc(r).status, 'succeeded', 'control: one process of 80 MiB under memory_mb 128 runs', sc(r));
r = await run(`${hold(80, 20)} & ${hold(80, 20)} & wait`, 128);
is(`${sc(r).status} ${sc(r).reason}`, 'oom memory', 'two of 80 MiB together: the run is stopped (the whole run counts)', sc(r));
ok((sc(r).wall_ms || 0) < 20000, 'and stopped as a whole, at once, not after the sleeps', sc(r).wall_ms);

// A session killed by the cgroup's OOM killer (not a MemoryError: the
// memory is touched through a shared mapping, which the kernel must find
// room for): its state is lost, the next call says so and why, and starts
// a new one.
const sess = (code) => call('run_code', { language: 'python', workspace_id: 'cgs', session: true,
  memory_mb: 128, timeout_s: 120, code });
r = await sess('x = 41\nx + 1');
is(sc(r).stdout, '42\n', 'control: a session under memory_mb 128 keeps x', text(r));
r = await sess('import mmap\nm = mmap.mmap(-1, 512 << 20)\nfor i in range(0, 512 << 20, 4096): m[i] = 1');
ok(r.isError || sc(r).status !== 'succeeded', 'a session call that touches 512 MiB of shared memory is stopped', JSON.stringify(sc(r)));
r = await sess("'x' in dir()");
like(`${sc(r).hint} ${text(r)}`, /ran out of memory \(the session's limit is 128 MiB/, 'the next call says the state was lost, and that memory ended it', JSON.stringify(sc(r)));
is(sc(r).stdout, 'False\n', 'and runs in a new session', text(r));

await client.close();
done();
