# srsession.py - the interpreter of a Python session of sr-mcp (sr-mcp(1),
# SESSIONS): run by the python runner in its session mode, inside the same
# chain as a run (sr-limit, sr-jail, sr-exec, /workspace), it keeps one
# namespace (__main__'s) for the life of the session and runs the code of
# each call in it.
#
# The channel is two FIFOs the runner binds from the host: requests come
# on /run/sr/session/in, answers go on /run/sr/session/out. Both are
# framed: a header line, then exactly the bytes it announces.
#   request  b"SRQ1 <call> <timeout_ms> <length>\n" + the code
#   answer   b"SRR1 <call> <kind> <length>\n" + bytes; kind o (stdout),
#            e (stderr), d (done: ok, error or interrupted)
# <call> is the 32 hex digits the host chose for the call. What the code
# prints travels inside o and e frames, so it can never end a call or
# pass for another call's answer: the host reads lengths, not markers.
#
# Output: fd 1 and 2 are pipes read by a pump thread, so that what a
# subprocess or a C library writes is the call's output too. The last
# expression's value is shown as the REPL shows it (sys.displayhook).
# The timeout interrupts the code with SIGINT (KeyboardInterrupt): the
# session lives on; the host kills it if the code does not stop soon.
import ast
import fcntl
import importlib
import linecache
import os
import select
import signal
import sys
import threading
import traceback

CHAN = "/run/sr/session"
HEADER_MAX = 200


class Channel:
    def __init__(self):
        # out first: once the host can open `in`, `out` has its writer
        self.out = os.open(CHAN + "/out", os.O_RDWR | os.O_CLOEXEC)
        self.inp = -1
        self.buf = bytearray()
        self.lock = threading.Lock()
        self.call = None

    def ready(self):
        # `in` last: the host takes the interpreter's threads and signal
        # handlers as they are now as its baseline, and ends the session
        # when a call leaves more of them running (sr-mcp(1), SESSIONS)
        self.inp = os.open(CHAN + "/in", os.O_RDWR | os.O_CLOEXEC)

    def send(self, call, kind, data):
        head = b"SRR1 %s %s %d\n" % (call.encode(), kind, len(data))
        msg = head + bytes(data)
        with self.lock:
            view = memoryview(msg)
            while view:
                view = view[os.write(self.out, view):]

    def _fill(self, idle):
        while True:
            r, _, _ = select.select([self.inp], [], [], idle or None)
            if r:
                break
            log(f"idle for {idle:g} s: the session ends")
            os._exit(0)
        chunk = os.read(self.inp, 1 << 16)
        if not chunk:
            os._exit(0)
        self.buf += chunk

    def request(self, idle):
        while b"\n" not in self.buf[:HEADER_MAX]:
            if len(self.buf) >= HEADER_MAX:
                log("a malformed request: the session ends")
                os._exit(3)
            self._fill(idle)
        line, _, rest = bytes(self.buf).partition(b"\n")
        parts = line.split(b" ")
        if len(parts) != 4 or parts[0] != b"SRQ1" or len(parts[1]) != 32:
            log("a malformed request: the session ends")
            os._exit(3)
        n = int(parts[3])
        self.buf = bytearray(rest)
        while len(self.buf) < n:
            self._fill(0)
        code = bytes(self.buf[:n])
        del self.buf[:n]
        return parts[1].decode(), int(parts[2]), code.decode("utf-8", "replace")


def log(msg):
    os.write(LOG, f"sr-mcp session: {msg}\n".encode())


class Pump(threading.Thread):
    """fd 1 and 2 as pipes; what comes out is framed for the call going."""

    def __init__(self, chan):
        super().__init__(daemon=True)
        self.chan = chan
        self.fds = {}
        for fd, kind in ((1, b"o"), (2, b"e")):
            r, w = os.pipe()
            os.dup2(w, fd)
            os.close(w)
            os.set_blocking(r, False)
            fcntl.fcntl(r, fcntl.F_SETFD, fcntl.FD_CLOEXEC)
            self.fds[r] = kind
        self.wake_r, self.wake_w = os.pipe2(os.O_CLOEXEC)
        self.flushed = threading.Event()

    def drain(self, fd):
        while True:
            try:
                data = os.read(fd, 1 << 16)
            except BlockingIOError:
                return
            if not data:
                return
            call = self.chan.call
            if call:
                self.chan.send(call, self.fds[fd], data)

    def run(self):
        while True:
            r, _, _ = select.select(list(self.fds) + [self.wake_r], [], [])
            for fd in r:
                if fd != self.wake_r:
                    self.drain(fd)
            if self.wake_r in r:
                os.read(self.wake_r, 64)
                for fd in self.fds:
                    self.drain(fd)
                self.flushed.set()

    def flush(self):
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except Exception:
                pass
        self.flushed.clear()
        os.write(self.wake_w, b"x")
        self.flushed.wait()


class Interrupter:
    """SIGINT to the main thread at the call's timeout, only while its
    code runs."""

    def __init__(self):
        self.lock = threading.Lock()
        self.running = False
        self.timer = None
        self.fired = False

    def start(self, ms):
        self.fired = False
        with self.lock:
            self.running = True
        if ms > 0:
            self.timer = threading.Timer(ms / 1000.0, self.fire)
            self.timer.daemon = True
            self.timer.start()

    def fire(self):
        with self.lock:
            if self.running:
                self.fired = True
                signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    def stop(self):
        with self.lock:
            self.running = False
        if self.timer:
            self.timer.cancel()
            self.timer.join()   # ended with the call: the host counts threads
            self.timer = None


def run_cell(code, name, g):
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    tree = ast.parse(code, name, "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    exec(compile(tree, name, "exec"), g)
    if last is not None:
        value = eval(compile(last, name, "eval"), g)
        sys.displayhook(value)


def save_figures():
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    try:
        import sitecustomize
        sitecustomize._save_open_figures(plt)
        plt.close("all")
    except Exception as e:
        print(f"sr-mcp: the open matplotlib figures were not saved: {e!r}", file=sys.stderr)


def one_call(chan, pump, intr, n, call, timeout_ms, code, g):
    chan.call = call
    status = b"ok"
    importlib.invalidate_caches()   # what install_packages added since
    try:
        intr.start(timeout_ms)
        try:
            run_cell(code, f"<cell {n}>", g)
        finally:
            intr.stop()
    except KeyboardInterrupt as e:
        status = b"interrupted" if intr.fired else b"error"
        traceback.print_exception(type(e), e, e.__traceback__.tb_next)
    except SystemExit as e:
        status = b"ok" if e.code in (None, 0) else b"error"
        if e.code not in (None, 0):
            print(f"SystemExit: {e.code}", file=sys.stderr)
    except BaseException as e:
        status = b"error"
        traceback.print_exception(type(e), e, e.__traceback__.tb_next)
    save_figures()
    pump.flush()
    chan.send(call, b"d", status)
    chan.call = None


# Numeric libraries run one thread each: a pool they start at import
# (OpenBLAS's, OpenMP's) would be threads left running, which end the
# session; a plain run has them all.
THREADS_ONE = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
               "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def main():
    idle = float(os.environ.pop("SR_SESSION_IDLE", "0") or 0)
    for k in THREADS_ONE:
        os.environ.setdefault(k, "1")
    sys.argv = [""]
    chan = Channel()
    pump = Pump(chan)
    pump.start()
    for f in (sys.stdout, sys.stderr):
        f.reconfigure(line_buffering=True)
    chan.ready()
    intr = Interrupter()
    g = sys.modules["__main__"].__dict__     # python3 -c: a clean namespace
    g.pop("srsession", None)
    n = 0
    while True:
        try:
            call, timeout_ms, code = chan.request(idle)
            n += 1
            one_call(chan, pump, intr, n, call, timeout_ms, code, g)
        except KeyboardInterrupt:
            continue


LOG = os.dup(2)   # the interpreter's own stderr (its job's log), before the pump
os.set_inheritable(LOG, False)
