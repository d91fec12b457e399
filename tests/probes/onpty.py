# onpty.py ARGV...: run ARGV on a new pty (its controlling terminal) and
# print the last line it wrote there, or an empty line.
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        d = os.read(fd, 1024)
    except OSError:
        break
    if not d:
        break
    out += d
os.waitpid(pid, 0)
lines = out.decode(errors="replace").replace("\r", "").strip().splitlines()
print(lines[-1] if lines else "")
