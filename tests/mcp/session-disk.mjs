// session-disk.mjs - a session in a workspace of 8 MiB and 300 inodes
// tries to hold more: fallocate(FALLOC_FL_KEEP_SIZE), writes after
// unlink, a big write, many small files, a mapped file grown past the
// room; each is refused at the bound (ENOSPC; SIGBUS for the mapping),
// the result says the quota was reached, and the host's disk holds less
// than the quota. The controls: the same allocations on the host's file
// system take the room (and a size walk sees none of it), and a file put
// into the workspace's directory itself stays invisible to a session that
// looked for it. What a call writes is in the workspace's directory when
// the call returns; write_file, delete_path and runs write through the
// session's view, which the session sees even for names it looked for.
// And nothing of sr-mcp walks the workspace while a session lives (no
// watch thread).
import { mkdtempSync, readFileSync, writeFileSync, existsSync, readdirSync, unlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, done, server, stateDir, serverEnv, sc, text } from './tap.mjs';

const T = { timeout: 180000 };
async function start(state, env) {
  const client = new Client({ name: 'sr-test-session-disk', version: '1' });
  const transport = new StdioClientTransport({ command: server, args: [], stderr: 'pipe',
    env: serverEnv(state, env) });
  await client.connect(transport);
  return { client, transport, call: (n, args) => client.callTool({ name: n, arguments: args }, undefined, T) };
}
const state = stateDir();
const wsdir = `${state}/workspaces/dk`;
const s = await start(state, { SR_MCP_WORKSPACE_QUOTA: '8M', SR_MCP_WORKSPACE_INODES: '300' });
const py = (code) => s.call('run_code', { language: 'python', workspace_id: 'dk', session: true, code });
const du = () => spawnSync('find', [wsdir, '-type', 'f', '-printf', '%s\n'], { encoding: 'utf8' }).stdout.split('\n').reduce((a, b) => a + Number(b || 0), 0);
const blocks = () => Number(spawnSync('du', ['-sk', wsdir], { encoding: 'utf8' }).stdout.split('\t')[0]) * 1024;

// the controls on the host's file system: the allocations are real there
const host = mkdtempSync(`${process.env.TMPDIR || '/tmp'}/sr-disk.`);
const ctl = spawnSync('python3', ['-c', `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(sys.argv[1] + "/res", os.O_WRONLY | os.O_CREAT, 0o600)
r = libc.fallocate(fd, 1, ctypes.c_long(0), ctypes.c_long(16 << 20))
st = os.fstat(fd)
f = open(sys.argv[1] + "/gone", "wb"); os.remove(sys.argv[1] + "/gone")
f.write(b"z" * (16 << 20)); f.flush()
print(r, st.st_size, st.st_blocks * 512 >= 16 << 20, os.fstat(f.fileno()).st_blocks * 512 >= 16 << 20)
`, host], { encoding: 'utf8' });
is(ctl.stdout, '0 0 True True\n', 'control: on the host, fallocate --keep-size holds 16 MiB with a size of 0, and a file written after its unlink 16 MiB no walk can see', ctl.stderr);

let r = await py('import os, ctypes, subprocess\nn = 1\nopen("first.txt", "w").write("by the session")\nos.path.exists("wf.txt"), os.path.exists("ran.txt"), os.path.exists("direct.txt")');
is(sc(r).stdout, '(False, False, False)\n', 'a session in a workspace of 8 MiB; it looks for three names', text(r));
is(existsSync(`${wsdir}/first.txt`) && readFileSync(`${wsdir}/first.txt`, 'utf8'), 'by the session', "the call's file is in the workspace's directory when the call returns");
r = await py('v = os.statvfs("/workspace")\nv.f_blocks * v.f_frsize <= 8 << 20');
is(sc(r).stdout, 'True\n', "the session's writes go to a file system of the quota's size at most (the quota's tmpfs)", text(r));

// the host's writes go through the session's view; the control writes into the directory itself
r = await s.call('write_file', { workspace_id: 'dk', path: 'wf.txt', content: 'by write_file' });
ok(!r.isError, 'write_file while the session lives', text(r));
writeFileSync(`${wsdir}/direct.txt`, 'behind its back');
r = await s.call('run_code', { language: 'bash', workspace_id: 'dk', code: 'cat first.txt; echo; echo by-a-run > ran.txt' });
is(sc(r).stdout, 'by the session\n', 'a plain run sees what the session wrote', text(r));
r = await py('[open(f).read() if os.path.exists(f) else None for f in ("wf.txt", "ran.txt", "direct.txt")]');
is(sc(r).stdout, "['by write_file', 'by-a-run\\n', None]\n", 'the session sees what write_file and a run wrote, names it had looked for; control: not a file put into the directory itself', text(r));
unlinkSync(`${wsdir}/direct.txt`);      // put there behind the quota's back: gone the same way
r = await s.call('delete_path', { workspace_id: 'dk', path: 'wf.txt' });
r = await py('os.path.exists("wf.txt")');
is(sc(r).stdout, 'False\n', 'delete_path through the view: the session sees it gone', text(r));
ok(!existsSync(`${wsdir}/wf.txt`), 'and the workspace has it gone');
r = await s.call('read_file', { workspace_id: 'dk', path: 'ran.txt' });
like(text(r), /by-a-run/, 'read_file reads through the view');

// the attacks, each at the bound
const fall = await py('fd = os.open("res", os.O_WRONLY | os.O_CREAT)\nlibc = ctypes.CDLL(None, use_errno=True)\nr = libc.fallocate(fd, 1, ctypes.c_long(0), ctypes.c_long(64 << 20))\nos.close(fd)\n(r, ctypes.get_errno())');
is(sc(fall).stdout, '(-1, 28)\n', 'fallocate --keep-size of 64 MiB: ENOSPC', text(fall));
r = await py('os.remove("res")\nf = open("gone", "wb", buffering=0)\nos.remove("gone")\ntry:\n    while True: f.write(b"u" * (1 << 20))\nexcept OSError as e:\n    print("unlinked", e.errno)\nf.close()');
is(sc(r).stdout, 'unlinked 28\n', 'writes after the unlink: ENOSPC at the bound', text(r));
r = await py('try:\n    open("big", "wb").write(b"b" * (20 << 20))\nexcept OSError as e:\n    print("big", e.errno)');
is(sc(r).stdout, 'big 28\n', 'a write of 20 MiB: ENOSPC', text(r));
like(sc(r).hint || '', /reached its quota of 8 MiB/, 'the result of a call that left the workspace full says the quota was reached, and what to do', JSON.stringify(sc(r)));
like(sc(r).stderr, /reached its quota of 8 MiB.*Delete files/, 'its stderr too', sc(r).stderr);
ok(du() < 8 << 20, `the workspace's directory holds less than its quota (${du()} bytes)`);
r = await py('os.remove("big")');
r = await py('p = subprocess.run(["python3", "-c", "import mmap, os\\nfd = os.open(\'mm\', os.O_RDWR | os.O_CREAT)\\nos.ftruncate(fd, 64 << 20)\\nm = mmap.mmap(fd, 64 << 20)\\nfor i in range(0, 64 << 20, 4096): m[i] = 1"])\nos.remove("mm")\np.returncode');
is(sc(r).stdout, '-7\n', 'a mapped file grown past the room: its writer gets SIGBUS at the bound', text(r));
// The tmpfs has some inodes more than the room (overlayfs's own: a
// directory emptied and rewritten at the cap); the apply holds the
// directory to the cap exactly, and says what it did not apply.
r = await py('made = 0\ntry:\n    for i in range(5000):\n        open(f"f{i}", "w").close(); made += 1\nexcept OSError as e:\n    print("inodes", e.errno, made)');
like(sc(r).stdout, /^inodes 28 \d+/, 'many small files: ENOSPC', text(r));
const made = Number((sc(r).stdout.match(/inodes 28 (\d+)/) || [])[1]);
ok(made < 300 + 300 / 4 + 64 + 16, `before the tmpfs's inodes for the quota of 300 and overlayfs's own (${made})`);
const entries = readdirSync(wsdir);
ok(entries.length <= 300, `the workspace's directory holds 300 entries at most (${entries.length}: ${entries.filter((e) => !/^f\d+$/.test(e)).join(' ')})`);
like(sc(r).stderr, /not all applied.*past the quota/, 'and the call says what was not applied', sc(r).stderr);
r = await py('for i in range(made): os.remove(f"f{i}")');
r = await py('n');
is(sc(r).stdout, '1\n', 'the session lives on, its state kept');
ok(du() < 8 << 20 && blocks() < 8 << 20, `the workspace holds less than its quota on the host's disk (${du()} bytes, ${blocks()} allocated)`);
r = await py('v = os.statvfs("/workspace")\n(v.f_blocks - v.f_bfree) * v.f_frsize <= 8 << 20');
is(sc(r).stdout, 'True\n', "and the session's tmpfs holds less than it too", text(r));

// no walk: sr-mcp has the same threads with the quota on as off
// (the watch this replaced was a thread started with the quota on only)
const threads = (pid) => readdirSync(`/proc/${pid}/task`).length;
const on = threads(s.transport.pid);
const s2 = await start(stateDir(), { SR_MCP_WORKSPACE_QUOTA: 'off' });
await s2.call('run_code', { language: 'python', workspace_id: 'dk2', session: true, code: '1' });
const off = threads(s2.transport.pid);
ok(on <= off, `with a session live, sr-mcp runs no more threads with the quota on than off (${on}, ${off}): no watch walks the workspace`);
await s2.client.close();
await s.client.close();
done();
