// result.mjs - what a run's result says happened, through the official SDK
// v1 client (which checks each structuredContent against its outputSchema):
// a run is "oom" only when sr-limit saw the limit reached; what a runtime
// reports of an allocation refused (Python's MemoryError, V8's heap abort,
// C++'s std::bad_alloc) is repeated as the program's word, and the code
// forging it (raise MemoryError, V8's lines and abort()) gets no verdict;
// with controls for the real failures; the files a run
// created or changed come back as resource_links resources/read reads; a
// failed install says in one sentence what failed before its log.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, is, like, skip, done, server, stateDir, sc, text, asan, stdioClient } from './tap.mjs';

const start = (extra) => stdioClient(Client, StdioClientTransport, stateDir(), 'sr-test-result', extra, 120000);
const links = (r) => (r.content || []).filter((c) => c.type === 'resource_link');

let s = await start({ SR_MCP_MEMORY_MAX: '1024M', SR_MCP_NETWORK: 'install' });
const info = sc(await s.call('sandbox_info', {}));
const rlimit = /^rlimit/.test(info.memory_enforcement || '');

// ---- memory -----------------------------------------------------------------
// Only sr-limit's report makes a run "oom" (the kernel's OOM kill, or a
// peak at the limit): what the runtime prints, which the code could print
// itself, is repeated as the program's own report, the status left as is.
const py = (code, mb = 256) => s.call('run_code', { language: 'python', code, memory_mb: mb });
const oom = (r, cause, desc) => {
  ok(sc(r).status === 'oom' && sc(r).reason === 'memory' && sc(r).limit_hit === 'memory',
    `${desc}: status oom, reason memory, limit_hit memory`, sc(r));
  like(sc(r).hint, new RegExp(`^The run ran out of memory: the sandbox saw it reach its limit of \\d+ MiB.*${cause}.*memory_mb.*chunks`),
    `${desc}: the hint: the sandbox saw the limit reached, the program's report, memory_mb and chunks`);
};
// the program's word: status failed (exit 1) or killed (SIGABRT), no limit hit
const said = (r, status, cause, desc) => {
  ok(sc(r).status === status && sc(r).limit_hit === null && sc(r).reason !== 'memory',
    `${desc}: status ${status}, no limit hit (the sandbox saw none)`, sc(r));
  like(sc(r).hint, new RegExp(`^The program reported an allocation failure \\(${cause}[^)]*\\) under a memory limit of \\d+ MiB: an allocation refused at the limit is never held.*did not see.*memory_mb.*chunks`),
    `${desc}: the hint gives it as the program's report, with the limit, memory_mb and chunks`);
};
const failed = (r, desc) => ok(sc(r).status === 'failed' && sc(r).limit_hit === null && !/memory/.test(sc(r).hint || ''),
  `${desc}: failed, no limit hit, nothing said of memory`, sc(r));

if (asan) {
  skip('memory: the runs', 'SAN=address: runs have no memory limit');
} else {
  // forged: the code raises MemoryError, prints the runtimes' lines and aborts
  let r = await py('raise MemoryError("out of room")');
  said(r, 'failed', 'Python: MemoryError', 'forged: the code raises MemoryError itself');
  ok(!/stopped by the memory limit/.test(text(r)), 'forged: the text block says no limit stopped it', text(r));
  r = await s.call('run_code', { language: 'javascript', memory_mb: 256, code:
    'console.error("FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory"); process.abort();' });
  said(r, 'killed', 'Node.js: JavaScript heap out of memory', 'forged: V8\'s fatal line printed, then process.abort()');
  r = await s.call('run_code', { language: 'bash', memory_mb: 256, code:
    "echo \"terminate called after throwing an instance of 'std::bad_alloc'\" >&2; kill -ABRT $$" });
  said(r, 'killed', 'C\\+\\+: std::bad_alloc', 'forged: std::terminate\'s line printed, then SIGABRT');
  r = await py('import os, sys\nenv = open("/proc/self/environ", "rb").read().split(b"\\0")\n' +
    'job = [v for v in env if v.startswith(b"SR_MCP_JOB=")]\nprint("job ids told:", len(job))\n' +
    'print("sr-mcp: the program ran out of memory (Python: MemoryError) [job " + "0" * 32 + "]", file=sys.stderr)\nsys.exit(1)');
  is(sc(r).stdout, 'job ids told: 0\n', 'the initial environment (/proc/self/environ) holds no job id');
  failed(r, 'forged: the old runner\'s memory line printed');
  if (rlimit) {
    // the real thing, seen from outside: a peak that reaches the limit
    r = await py('l = []\nwhile True:\n    l.append(b"x" * (1 << 20))');
    oom(r, 'Python: MemoryError', 'python: a list that grows to the limit');
    is(sc(r).memory_limit_bytes, 256 * 1048576, 'memory_limit_bytes gives the limit');
    like(text(r), /stopped by the memory limit/, 'the text block says the memory limit stopped it');
    // the real thing, seen only by the program: one allocation refused
    r = await py('x = bytearray(10**10)');
    said(r, 'failed', 'Python: MemoryError', 'python: one allocation past the rlimit');
    ok(sc(r).peak_memory_bytes < 0.9 * 256 * 1048576, 'its peak was far from the limit (sr-limit does not see it)', sc(r).peak_memory_bytes);
    like(sc(r).hint, /limit of 256 MiB: an allocation refused at the limit is never held, so the peak measured \(\d+ MiB, largest process maxrss\) is what the run held before it, not what it asked for/,
      'the hint gives the limit, and the peak measured as what the run held, not what it asked for');
    r = await py('try:\n    import numpy\nexcept ImportError:\n    print("no numpy")\nelse:\n    x = numpy.ones(10**10)');
    if (sc(r).stdout === 'no numpy\n') {
      skip('python: NumPy\'s refused array', 'no numpy in the default environment');
    } else {
      said(r, 'failed', 'Python: MemoryError, asking for 74.5 GiB', 'python: a NumPy array the rlimit refused (_ArrayMemoryError)');
      like(sc(r).hint, /asking for 74\.5 GiB\) under a memory limit of 256 MiB: .*the peak measured \(\d+ MiB/,
        'the hint says what was asked for, the limit, and the peak as what was held');
    }
    r = await py('x = bytearray(10**10)', 1024);
    like(sc(r).hint, /already at this server's cap \(1024 MiB\)/, 'at the cap, the hint says so and asks for chunks');
    r = await s.call('run_code', { language: 'javascript', memory_mb: 512,
      code: 'const a = []; for (;;) a.push(new Array(1e6).fill(1.5));' });
    said(r, 'killed', 'Node.js: JavaScript heap out of memory', 'javascript: a heap that grows past V8\'s limit');
    is(sc(r).signal, 'ABRT', 'V8 aborted');
    r = await py('import mmap\nm = mmap.mmap(-1, 10**11)');
    said(r, 'failed', 'Python: OSError ENOMEM', 'python: an mmap the rlimit refused (ENOMEM)');
    r = await s.call('run_code', { language: 'javascript', memory_mb: 256, code: 'const b = Buffer.alloc(2 ** 31); console.log(b.length);' });
    said(r, 'failed', 'Node.js: RangeError: Array buffer allocation failed', 'javascript: a buffer the rlimit refused');
    r = await s.call('run_code', { language: 'javascript', memory_mb: 256, code: '(async () => { await null; return new ArrayBuffer(1e10); })();' });
    said(r, 'failed', 'Node.js: RangeError: Array buffer allocation failed', 'javascript: the same in a rejected promise');
    r = await s.call('run_code', { language: 'javascript', memory_mb: 256,
      code: 'try { new ArrayBuffer(1e10); } catch (e) { console.error(String(e)); process.exit(1); }' });
    ok(sc(r).status === 'failed' && sc(r).limit_hit === null, 'control: javascript catches the refused buffer and exits 1: failed', sc(r));
    const gxx = spawnSync('g++', ['--version']).status === 0;
    if (!gxx) {
      skip('c++: std::bad_alloc', 'no g++ here');
    } else {
      r = await s.call('run_code', { language: 'bash', memory_mb: 256, code:
        "printf '#include <vector>\\nint main(){std::vector<char> v(20000000000ULL); return v[1];}\\n' > m.cc && g++ -o m m.cc && ./m" });
      said(r, 'failed', 'C\\+\\+: std::bad_alloc', 'c++: an uncaught std::bad_alloc (134 from the shell)');
    }
  } else {
    skip('memory: allocations refused by the rlimit', `memory is enforced by ${info.memory_enforcement}`);
  }
  // controls: the same words, not as the runtime leaves them
  r = await py('import sys\nprint("MemoryError", file=sys.stderr)\nprint("done", file=sys.stderr)\nsys.exit(1)');
  failed(r, 'control: MemoryError printed, not the last line');
  r = await py('try:\n    x = bytearray(10**12)\nexcept MemoryError:\n    print("caught")\nraise ValueError(1)');
  failed(r, 'control: a MemoryError caught, then another error');
  r = await s.call('run_code', { language: 'bash', memory_mb: 256, code:
    "echo 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory' >&2; echo \"terminate called after throwing an instance of 'std::bad_alloc'\" >&2; exit 1" });
  failed(r, 'control: the runtimes\' abort lines printed, exit 1 (no abort)');
}

// ---- the files a run made ---------------------------------------------------
const ws = 'made';
const run = (code) => s.call('run_code', { language: 'bash', workspace_id: ws, code });
let r = await run('mkdir -p data many node_modules/p .sr __pycache__ .git; printf hello > a.txt; ' +
  'printf "a,b\\n1,2\\n" > data/b.csv; for i in $(seq 25); do echo $i > many/f$i; done; ' +
  'echo x > node_modules/p/i.js; echo x > .sr/y; echo x > __pycache__/c.pyc; echo x > .git/HEAD');
let f = sc(r).files || [];
is(f.length, 20, 'a run that made 27 files lists 20');
is(sc(r).files_not_listed, 7, 'and says how many more');
like(text(r), /and 7 more/, 'the text block too');
ok(!f.some((x) => /node_modules|^\.sr|__pycache__|\.git/.test(x.path)), 'node_modules, .sr, caches and .git are left out', f);
ok(f[0] && f[0].path === 'a.txt' && f[0].size === 5 && f[0].change === 'created', 'each with its size and change, the top level first', f[0]);
is(links(r).length, 20, 'one resource_link block for each');
const csv = links(r).find((l) => l.name === 'data/b.csv');
ok(csv && csv.uri === `sr://workspaces/${ws}/files/data/b.csv` && csv.mimeType === 'text/csv' && csv.size === 8,
  'a link names the file, its uri, type and size', csv);
const got = csv ? await s.client.readResource({ uri: csv.uri }) : null;
is(got?.contents?.[0]?.text, 'a,b\n1,2\n', 'resources/read of the link reads the file');

r = await run('printf more >> a.txt; touch -d 2001-01-01 data/b.csv; rm many/f1; cat many/f2 > /dev/null');
f = sc(r).files || [];
is(JSON.stringify(f.map((x) => `${x.path}:${x.change}`)), '["a.txt:modified","data/b.csv:modified"]',
  'a second run: the file it appended to and the one whose time it set back, nothing read or untouched');
is(sc(r).files_deleted, 1, 'and how many it deleted');
const second = sc(r).job_id;
r = await run('cat a.txt > /dev/null');
is((sc(r).files || []).length, 0, 'a run that changes nothing lists no file');
is(links(r).length, 0, 'and no link');
// links and fifos the code planted are neither followed nor listed
r = s.call('run_code', { language: 'bash', workspace_id: 'links', code:
  'ln -s / hostroot; ln -s /etc/passwd pw; mkfifo ff; mkdir d; ln -s .. d/up; echo x > real; ls -l pw hostroot ff | wc -l' });
r = await r;
is(sc(r).stdout, '3\n', 'control: the run planted two links and a fifo');
is(JSON.stringify((sc(r).files || []).map((x) => x.path)), '["real"]',
  'only the regular file is listed: no link is followed, none listed, the fifo neither');
await run('echo new > later.txt');
r = await s.call('job_status', { job_id: second });
is(JSON.stringify((sc(r).files || []).map((x) => x.path)), '["a.txt","data/b.csv"]',
  'job_status of an earlier run lists what that run made, not what came after');

// ---- installer errors ---------------------------------------------------------
const sentenceFirst = (r, desc) => {
  const t = text(r), at = t.indexOf('The end of the log:');
  ok(sc(r).error && at > 0 && t.indexOf(sc(r).error) >= 0 && t.indexOf(sc(r).error) < at,
    `${desc}: one sentence of what failed, before the log`, t);
  const tail = at > 0 ? t.slice(at + 20).split('\n')[0] : '';
  const log = sc(r).log || '';
  ok(tail && (log.startsWith(tail) || log.includes(`\n${tail}\n`)), `${desc}: the log's tail starts at a line`, tail);
};
const reach = spawnSync('npm', ['view', 'is-number@7.0.0', 'version'], { encoding: 'utf8', timeout: 60000 });
if (reach.status !== 0) {
  skip('npm: no such package', 'the npm registry is not reachable from here');
} else {
  r = await s.call('install_packages', { workspace_id: 'inst', manager: 'npm', packages: ['sr-no-such-package-q8z7x'] });
  is(sc(r).failure, 'no_such_package', 'npm: a package that does not exist: failure no_such_package');
  like(sc(r).error, /no package named sr-no-such-package-q8z7x: check the name/, 'the sentence names it and says what to do');
  sentenceFirst(r, 'npm: no such package');
  r = await s.call('install_packages', { workspace_id: 'inst', manager: 'npm', packages: ['is-number@99.0.0'] });
  is(sc(r).failure, 'no_matching_version', 'npm: a version that does not exist: failure no_matching_version');
  like(sc(r).error, /no version of is-number@99\.0\.0/, 'the sentence names it');
}
const t0 = Date.now();
r = await s.call('install_packages', { workspace_id: 'inst', manager: 'pip', packages: ['sr-no-such-package-q8z7x'] });
if (sc(r).failure === 'index_unreachable') {
  like(sc(r).error, /could not reach the package index \(PyPI\)/, 'pip with no way to PyPI: the index cannot be reached');
  ok(Date.now() - t0 < 8000, 'and it gives up in seconds, not after five retries', Date.now() - t0);
} else {
  is(sc(r).failure, 'no_such_package', 'pip with PyPI reachable: no such package');
}
sentenceFirst(r, 'pip');
await s.client.close();
// no network for installs, only the administrator's wheels (none here)
const wheels = mkdtempSync(`${process.env.TMPDIR || '/tmp'}/sr-wheels.`);
s = await start({ SR_MCP_PIP_FIND_LINKS: wheels });
r = await s.call('install_packages', { workspace_id: 'inst', manager: 'pip', packages: ['requests'] });
like(sc(r).error, /gives installs no network.*no wheel of requests/, 'pip without the network: says so, and that the local wheels lack it');
await s.client.close();
done();
