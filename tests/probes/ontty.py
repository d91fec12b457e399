# ontty CMD...: run CMD with a new pty as its stdin (non-canonical, so one
# pushed byte is readable); print CMD's output, then "pushed: BYTES" (what
# sits in the terminal's input queue afterwards) and "changed: yes|no".
import os, pty, subprocess, sys, termios
m, s = pty.openpty()
t = termios.tcgetattr(s)
t[3] &= ~termios.ICANON
termios.tcsetattr(s, termios.TCSANOW, t)
before = termios.tcgetattr(s)
p = subprocess.run(sys.argv[1:], stdin=s, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.write(p.stdout.decode())
os.set_blocking(s, False)
try:
    pushed = os.read(s, 100).decode()
except BlockingIOError:
    pushed = ""
print("pushed:", pushed)
print("changed:", "yes" if termios.tcgetattr(s) != before else "no")
