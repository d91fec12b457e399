# userns-limit.py N PROG [ARGS...] - run PROG in a user namespace made for
# it, the caller's ids mapped to themselves, whose user.max_user_namespaces
# is N: the limit a host's sysctl sets, set here for this namespace only
# (the kernel keeps it per user namespace), so that a test can show what
# sr-jail and sr-mcp say where user namespaces are off without changing
# the host. PROG runs as the caller, with no capability.
import ctypes
import os
import sys

CLONE_NEWUSER = 0x10000000
libc = ctypes.CDLL(None, use_errno=True)
uid, gid = os.getuid(), os.getgid()
if libc.unshare(CLONE_NEWUSER) != 0:
    sys.exit("userns-limit: unable to create a user namespace: " + os.strerror(ctypes.get_errno()))
for path, text in (("/proc/self/setgroups", "deny"),
                   ("/proc/self/uid_map", "%d %d 1" % (uid, uid)),
                   ("/proc/self/gid_map", "%d %d 1" % (gid, gid)),
                   ("/proc/sys/user/max_user_namespaces", sys.argv[1])):
    with open(path, "w") as f:
        f.write(text)
os.execvp(sys.argv[2], sys.argv[2:])
