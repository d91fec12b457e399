#!/bin/bash
# sr-jail: attempts to break out through the file system. Each default is
# attacked and the expected outcome asserted.
. "$(dirname "$0")/lib.sh"

need_userns

# Host secrets: /etc/shadow, sudoers, ssh, the caller's home.
ok "control: the test can see the host's /etc/passwd" test -e /etc/passwd
run sr-jail sh -c 'cat /etc/shadow'
ok "reading /etc/shadow fails" test "$rc" != 0
like "$err" "No such file" "/etc/shadow does not exist inside"
run sr-jail sh -c 'ls -A /etc'
unlike "$out" "^(shadow|gshadow|sudoers|sudoers.d|ssh|passwd-|shadow-|machine-id)$" \
	"no shadow, sudoers, ssh or machine-id in /etc"
run sr-jail sh -c 'grep -c . /etc/passwd'
is "$out" 3 "/etc/passwd is the generated one (root, sandbox, nobody)"
mkdir -p "$HOME"
secret="$HOME/.sr-jail-secret-$$"
echo "top secret" > "$secret"
at_exit "rm -f '$secret'"
run sr-jail sh -c "cat '$secret'; ls '$HOME'"
unlike "$out" "top secret" "the caller's home is not readable inside"
ok "the caller's home does not exist inside" test "$rc" != 0
run sr-jail sh -c "cat '$T/../'* 2>/dev/null; ls '$SR_ROOT' 2>&1"
like "$out" "No such file" "the caller's other files are not visible"

# Writes to the system and to the caller's files.
for d in /usr /usr/bin /etc /etc/ssl/certs /bin / /dev /proc/sys/kernel; do
	run sr-jail sh -c "touch '$d/sr-jail-probe'"
	ok "writing to $d fails" test "$rc" != 0
done
ok "nothing was written to the host's /usr/bin" test ! -e /usr/bin/sr-jail-probe
echo keep > "$T/mine"
run sr-jail --ro-bind "$T" /t sh -c 'echo overwritten > /t/mine; rm -f /t/mine'
is "$(cat "$T/mine")" "keep" "a read-only bind of the caller's files cannot be changed"
run sr-jail --uid 0 sh -c 'echo x > /etc/passwd; chmod 777 /usr/bin; chown 0 /tmp'
is "$(stat -c %a /usr/bin)" "755" "not even uid 0 inside can change /usr/bin"
like "$err" "Read-only file system" "uid 0 inside meets read-only mounts"

# The old root: /proc/1/root, .., /proc/self/root, mountinfo.
run sr-jail sh -c 'readlink /proc/1/root; ls /proc/1/root/'
ok "PID 1's root is not readable (init is not dumpable)" test "$rc" != 0
run sr-jail sh -c 'cd /; cd ../../..; pwd; ls -A'
is "$(printf '%s\n' "$out" | head -1)" "/" "cd .. from / stays at /"
unlike "$out" "^(root|work|var|srv|boot|opt)$" "no host directory above /"
run sr-jail sh -c 'ls -A /proc/self/root/../../'
unlike "$out" "^(root|work|var|srv|boot|opt)$" "no host directory through /proc/self/root/.."
run sr-jail sh -c 'ls -A /'
is "$(printf '%s\n' "$out" | tr '\n' ' ')" "bin dev etc home lib lib32 lib64 proc sbin tmp usr " \
	"/ holds only the jail's tree" # lib32: this Debian has the symlink
run sr-jail sh -c 'awk "\$5 == \"/\"" /proc/self/mountinfo | wc -l; wc -l < /proc/self/mountinfo'
first=$(printf '%s\n' "$out" | head -1)
is "$first" 1 "one mount at / (the old root is detached)"
run sr-jail cat /proc/self/mountinfo
unlike "$out" " / /(work|root|var|srv|boot|opt)" "no host mount is listed"
ok "control: the host has a /root or /var" test -e /var -o -e /root

# A symlink planted in a bound workspace (by an earlier job, say) cannot
# steer a later mount's destination onto the host.
mkdir -p "$T/ws2" "$T/outside" "$T/ro2"
ln -s "$T/outside" "$T/ws2/evil"
run sr-jail --bind "$T/ws2" /ws --ro-bind "$T/ro2" /ws/evil/sub true
ok "nothing was created on the host through the planted symlink" test ! -e "$T/outside/sub"
ok "the jail refused to build (the link leads nowhere inside)" test "$rc" = 111
ln -s /tmp "$T/ws2/evil2"
run sr-jail --bind "$T/ws2" /ws --bind "$T/ro2" /ws/evil2/sub sh -c 'ls -d /tmp/sub'
is "$out" "/tmp/sub" "an absolute symlink in a workspace resolves inside the jail"

# Remount, mount, unshare, pivot: no capability to do any of it.
run sr-jail sh -c 'mount -o remount,rw /usr'
ok "remounting /usr read-write fails" test "$rc" != 0
run sr-jail --uid 0 sh -c 'mount -o remount,bind,rw /usr || exit 9; touch /usr/x'
is "$rc" 9 "uid 0 inside cannot remount /usr read-write"
run sr-jail --uid 0 sh -c 'mount -t tmpfs none /tmp || exit 9'
is "$rc" 9 "uid 0 inside cannot mount"
run sr-jail --uid 0 sh -c 'umount -l /usr || exit 9'
is "$rc" 9 "uid 0 inside cannot unmount"
run sr-jail sh -c 'unshare -U true || exit 9'
is "$rc" 9 "unshare of a user namespace fails"
like "$err" "No space left|Operation not permitted" "the nested user namespace is refused"
run sr-jail sh -c 'unshare -m true || exit 9'
is "$rc" 9 "unshare of a mount namespace fails"
run sr-jail --allow-userns sh -c 'unshare -Urm sh -c "mount -o remount,bind,rw /usr && touch /usr/x" || exit 9'
is "$rc" 9 "--allow-userns: even a nested user and mount namespace cannot make /usr writable"
run sr-jail --allow-userns --ro-bind "$T" /t sh -c 'unshare -Urm sh -c "mount -o remount,bind,rw /t && echo x > /t/mine" || exit 9'
is "$rc" 9 "--allow-userns: nor a read-only bind"
is "$(cat "$T/mine")" "keep" "the file is unchanged"
run sr-jail --allow-userns sh -c 'unshare -Ur sh -c "umount -l /usr && ls /usr" || exit 9'
is "$rc" 9 "--allow-userns: a nested namespace cannot unmount to see what is under"

# Device nodes: /dev has only the five, and none can be made.
run sr-jail ls -A /dev
is "$(printf '%s\n' "$out" | tr '\n' ' ')" "fd full null random shm stderr stdin stdout urandom zero " \
	"/dev: null zero full random urandom, fd links, shm; no tty, pts or console"
run sr-jail --uid 0 sh -c 'mknod /tmp/mem c 1 1 || mknod /dev/shm/mem c 1 1 || exit 9'
is "$rc" 9 "uid 0 inside cannot mknod a device"
run sr-jail python3 -c 'import os; os.mknod("/tmp/null", 0o666 | 0o020000, os.makedev(1, 3))'
ok "mknod of a char device fails for the sandbox user" test "$rc" != 0
run sr-jail sh -c 'head -c 4 /dev/zero | od -An -tx1; echo x > /dev/null; head -c 8 /dev/urandom | wc -c'
is "$out" " 00 00 00 00
8" "the device nodes there work"
run sr-jail python3 -c 'import os; os.write(os.open("/dev/full", os.O_WRONLY), b"x")'
like "$err" "No space left" "/dev/full is full"
run sr-jail sh -c 'grep -E " /(tmp|home/sandbox|dev/shm|usr|etc/hosts) " /proc/self/mountinfo | grep -vc "nosuid,nodev"'
is "$out" 0 "/tmp, HOME, /dev/shm, /usr and /etc binds are nosuid,nodev"

run sr-jail sh -c 'cp /bin/true /dev/shm/t && /dev/shm/t || exit 9'
is "$rc" 9 "/dev/shm is noexec"
run sr-jail sh -c 'cp /bin/true /tmp/t && /tmp/t && cp /bin/true $HOME/t && $HOME/t'
is "$rc" 0 "control: programs can be run from /tmp and HOME"
run sr-jail stat -c %a /home/sandbox
is "$out" 700 "HOME is mode 0700"

# The caps on /tmp and HOME.
run sr-jail sh -c 'dd if=/dev/zero of=/tmp/fill bs=1M count=100 2>&1; stat -c %s /tmp/fill'
like "$out" "No space left" "filling /tmp past its 64M cap fails"
last=$(printf '%s\n' "$out" | tail -1)
ok "/tmp holds no more than 64M ($last bytes)" test "$last" -le $((64 * 1024 * 1024))
run sr-jail --tmpfs /tmp:4M sh -c 'dd if=/dev/zero of=/tmp/fill bs=1M count=10 2>&1; stat -c %s /tmp/fill'
last=$(printf '%s\n' "$out" | tail -1)
ok "--tmpfs /tmp:4M caps /tmp at 4M ($last bytes)" test "$last" -le $((4 * 1024 * 1024))
run sr-jail sh -c 'dd if=/dev/zero of=$HOME/fill bs=1M count=100 2>&1; stat -c %s $HOME/fill'
last=$(printf '%s\n' "$out" | tail -1)
ok "HOME is capped at 64M too ($last bytes)" test "$last" -le $((64 * 1024 * 1024))
run sr-jail python3 -c '
for i in range(100000):
    open("/tmp/f%d" % i, "w").close()'
like "$err" "No space left" "/tmp's inodes are capped too"
done_testing
