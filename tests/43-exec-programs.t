#!/bin/bash
# Ordinary programs under the default profile: Python (threads, subprocess,
# mkdir/unlink, asyncio, multiprocessing), Node (event loop, worker
# threads, child processes, fs, a unix socket server), bash pipelines,
# coreutils, gcc compiling and running a threaded program. Then the strict
# profile: computation and threads work, processes, sockets and exec do not.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
W=$T/work
mkdir -p "$W"
cd "$W" || exit 1

cat >"$T/work.py" <<'EOF'
import asyncio, multiprocessing, os, socket, subprocess, tempfile, threading
d = tempfile.mkdtemp(dir=os.environ["W"])
os.mkdir(d + "/x"); open(d + "/x/f", "w").write("hi"); os.rename(d + "/x/f", d + "/x/g")
os.unlink(d + "/x/g"); os.rmdir(d + "/x"); os.rmdir(d)
out = []
ts = [threading.Thread(target=lambda i=i: out.append(sum(range(i * 1000)))) for i in range(8)]
[t.start() for t in ts]; [t.join() for t in ts]
assert len(out) == 8
assert subprocess.run(["echo", "sub"], capture_output=True).stdout == b"sub\n"
assert subprocess.check_output("echo a | tr a b", shell=True) == b"b\n"
a, b = socket.socketpair(); a.send(b"x"); assert b.recv(1) == b"x"
async def main():
    p = await asyncio.create_subprocess_exec("true"); await p.wait()
    await asyncio.sleep(0.01)
    return p.returncode
assert asyncio.run(main()) == 0
with multiprocessing.Pool(2) as pool:
    assert pool.map(abs, [-1, -2]) == [1, 2]
print("python ok")
EOF

cat >"$T/work.js" <<'EOF'
const { Worker, isMainThread, parentPort } = require('worker_threads');
const cp = require('child_process'), fs = require('fs'), path = require('path'), net = require('net');
if (!isMainThread) { parentPort.postMessage(6 * 7); return; }
const dir = process.env.W;
new Worker(__filename).on('message', (m) => {
  if (m !== 42) throw new Error('worker');
  if (cp.execSync('echo hi | tr h H').toString() !== 'Hi\n') throw new Error('execSync');
  cp.exec('echo async', (e, so) => {
    if (e || so !== 'async\n') throw new Error('exec');
    const d = fs.mkdtempSync(path.join(dir, 'n')); fs.writeFileSync(d + '/f', 'x');
    fs.unlinkSync(d + '/f'); fs.rmdirSync(d);
    fs.promises.readFile(__filename).then(() => setTimeout(() => {
      const sp = path.join(dir, 's' + process.pid);
      const srv = net.createServer((c) => c.end('pong')).listen(sp, () => {
        net.connect(sp).on('data', (x) => { srv.close(); console.log('node ok', x.toString()); });
      });
    }, 5));
  });
});
EOF

export W
run sr-exec "$PY" "$T/work.py"
is "$out" "python ok" "python3: threads, subprocess, mkdir/unlink, asyncio, multiprocessing"
[ "$rc" = 0 ] || diag "$err"

if command -v node >/dev/null 2>&1; then
	run sr-exec node "$T/work.js"
	is "$out" "node ok pong" "node: worker threads, child_process, fs, event loop, unix socket"
	[ "$rc" = 0 ] || diag "$err"
else
	skip "node under the default profile" "node is not installed"
fi

run sr-exec bash -c 'set -o pipefail; seq 1 1000 | sort -rn | head -3 | tr "\n" " "; x=$(date +%Y); [ "$x" -gt 2000 ] && echo year; sleep 0.01 & wait; echo done'
is "$out" "1000 999 998 year
done" "bash: pipelines, command substitution, background jobs"

sum=$(printf 'data\n' | sha256sum | cut -c1-16)
run sr-exec sh -c 'mkdir d && echo data > d/a && cp d/a d/b && mv d/b d/c && ls d | tr "\n" " " && echo && sha256sum d/c | cut -c1-16 && find d -type f | wc -l && tar cf x.tar d && rm -r d && tar tf x.tar | wc -l && rm x.tar && ls'
is "$out" "a c 
$sum
2
3" "coreutils, find, tar: file operations in a writable place"

if command -v cc >/dev/null 2>&1; then
	printf '%s\n' '#include <pthread.h>' '#include <stdio.h>' \
		'static void *f(void *a) { return a; }' \
		'int main(void) { pthread_t t; void *r; pthread_create(&t, 0, f, (void *)42); pthread_join(t, &r); printf("%ld\n", (long)r); return 0; }' >"$W/t.c"
	run sr-exec cc -pthread -o "$W/t" "$W/t.c"
	is "$rc" 0 "gcc compiles under the default profile"
	[ "$rc" = 0 ] || diag "$err"
	run sr-exec "$W/t"
	is "$out" 42 "a gcc-compiled threaded program runs"
else
	skip "gcc under the default profile" "no cc"
fi

# strict: pure computation.
run sr-exec -p strict "$PY" -c 'import threading; r = []; t = threading.Thread(target=lambda: r.append(sum(range(10**5)))); t.start(); t.join(); print(r[0])'
is "$out" 4999950000 "strict: python computes, with a thread"
run sr-exec -p strict "$PY" -c '
import os, socket, subprocess
for name, f in [("fork", os.fork), ("subprocess", lambda: subprocess.run(["true"])),
                ("socket", socket.socket), ("exec", lambda: os.execv("/bin/true", ["true"]))]:
    try:
        f(); print(name, "ran")
    except OSError as e:
        print(name, e.errno)'
is "$out" "fork 1
subprocess 1
socket 1
exec 1" "strict: fork, subprocess, socket, exec all fail with EPERM"
cc_probe_file probe exec_probe.c
run sr-exec -p strict "$T/probe" execve /bin/true
is "$out" "execve: EPERM" "strict: the program cannot exec another"
run sr-exec -p strict "$T/probe" socketpair 1
is "$out" "socketpair: EPERM" "strict: no socketpair"
run sr-exec -p strict "$T/probe" clone 0
is "$out" "clone: EPERM" "strict: clone of a process: EPERM"
run sr-exec -p strict "$T/probe" thread
is "$out" "thread: ok" "strict: clone of a thread: allowed"
for name in $("$T/probe" strict list); do
	run sr-exec -p strict "$T/probe" strict "$name"
	is "$out" "$name: EPERM" "strict refuses $name with EPERM"
done
for name in $("$T/probe" deny list); do
	run sr-exec -p strict "$T/probe" deny "$name"
	is "$out" "$name: EPERM" "strict refuses $name with EPERM, as default does"
done
run sr-exec -p strict sh -c 'echo never'
is "$rc" 0 "strict: a shell script runs when it forks nothing"
run sr-exec -p strict sh -c '/bin/true; echo after'
isnt_ok=$([ "$rc" != 0 ] && echo refused)
is "$isnt_ok" refused "strict: a shell cannot start a command"

done_testing
