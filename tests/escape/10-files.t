#!/bin/bash
# Escapes through the file system, tried through the whole chain
# (sr-limit sr-jail sr-exec): the caller's files, host secrets, the old
# root through /proc, file handles, inherited descriptors, device nodes,
# /proc/sys and read-only binds. Each refusal comes with a control that
# shows the same probe getting through where that layer is absent.
. "$(dirname "$0")/../lib.sh"

need_userns

# The probe: one file operation per run, printing "ok CONTENT", "ok" or
# the errno's name. Reads use pread at offset 0, so a descriptor shared
# with the test is read from the start whoever read it before.
mkdir -p "$T/p"
cc_probe_file p/fp fp.c
FP=$T/p/fp
CHAIN=(sr-limit --pids 64 --timeout 20s sr-jail --ro-bind "$T/p" /p sr-exec)
chain() { run "${CHAIN[@]}" /p/fp "$@"; }
bare() { run "$FP" "$@"; }

# A file in the caller's home.
mkdir -p "$HOME"
homefile="$HOME/.sr-escape-home-$$"
echo "home secret $$" > "$homefile"
at_exit "rm -f '$homefile'"
bare read "$homefile"
is "$out" "ok home secret $$" "control: the probe reads a file in the caller's home on the host"
chain read "$homefile"
is "$out" "ENOENT" "the caller's home file does not exist inside the chain"

# ~/.ssh under a temporary HOME, reached by its host path and by ~.
mkdir -p "$T/home/.ssh"
echo "-----BEGIN OPENSSH PRIVATE KEY----- sr-fake-$$" > "$T/home/.ssh/id_ed25519"
chmod 600 "$T/home/.ssh/id_ed25519"
HOME=$T/home bare read "$T/home/.ssh/id_ed25519"
like "$out" "^ok .*sr-fake-$$" "control: the fake ssh key is readable on the host"
HOME=$T/home chain read "$T/home/.ssh/id_ed25519"
is "$out" "ENOENT" "the fake ~/.ssh key is not there by its host path"
HOME=$T/home run "${CHAIN[@]}" sh -c '/p/fp read "$HOME/.ssh/id_ed25519"; echo "HOME=$HOME"'
is "$out" "ENOENT
HOME=/home/sandbox" "nor under the jail's own HOME (a fresh /home/sandbox)"

# The caller's working directory is left behind (no cwd into the old root).
mkdir -p "$T/cwd"
echo "cwd secret" > "$T/cwd/here"
cd "$T/cwd" || exit 1
bare read here
is "$out" "ok cwd secret" "control: a relative path reads the caller's cwd on the host"
chain read here
is "$out" "ENOENT" "started from that directory, the chain cannot read it relatively"
chain read /proc/self/cwd/here
is "$out" "ENOENT" "nor through /proc/self/cwd"
cd - >/dev/null || exit 1

# Host secrets in /etc.
bare read /etc/shadow
like "$out" "^(EACCES|ok .*)$" "control: /etc/shadow exists on the host ($out)"
chain read /etc/shadow
is "$out" "ENOENT" "/etc/shadow does not exist inside"
for f in /etc/hostname /etc/machine-id /etc/passwd-; do
	[ -r "$f" ] && break
done
if [ -r "$f" ]; then
	bare read "$f"
	like "$out" "^ok" "control: the world-readable $f is readable on the host"
	chain read "$f"
	is "$out" "ENOENT" "$f is not in the jail's minimal /etc"
else
	skip "host-only /etc file" "none of /etc/hostname, machine-id, passwd- is readable here"
	skip "host-only /etc file absent inside" "none of them to compare with"
fi

# The old root through /proc: a host process's root, and the jail's PID 1.
sleep 120 &
victim=$!
at_exit "kill $victim 2>/dev/null"
bare read "/proc/$victim/root$homefile"
is "$out" "ok home secret $$" "control: /proc/PID/root of a host process of the user reaches the host's files"
chain read "/proc/$victim/root$homefile"
is "$out" "ENOENT" "inside, that host PID's /proc/PID/root does not exist"
chain read /proc/self/root/etc/passwd
like "$out" "^ok root:" "control: inside, /proc/self/root works (the path trick reaches own root)"
chain read /proc/1/root/etc/passwd
is "$out" "EACCES" "/proc/1/root of the jail's init (which holds the host root open longest) is refused"
chain read "/proc/1/root$homefile"
is "$out" "EACCES" "so the host file cannot be reached through it either"

# File handles: open_by_handle_at bypasses paths (the "shocker" attack).
mkdir -p "$T/h"
if run unshare -rm sh -c 'mount -t tmpfs none "$1" && mkdir "$1/d" && "$2" handle "$1/d"' sh "$T/h" "$FP" &&
   [ "$out" = "name_to_handle_at=ok
open_by_handle_at=ok" ]; then
	ok "control: in a user+mount namespace owning a tmpfs, both handle calls work" true
else
	skip "control: handle calls work in an owned namespace" "unshare -rm cannot here: $out $err"
fi
chain handle /tmp
is "$out" "name_to_handle_at=EPERM
open_by_handle_at=EPERM" "inside the chain both handle calls are EPERM"
echo "handle secret" > "$T/hsecret"
bare gethandle "$T/hsecret"
hnd=$out
if [[ $hnd == [0-9]*:[0-9a-f]* ]]; then
	chain usehandle /usr "$hnd"
	is "$out" "EPERM" "a handle of a host file, replayed inside on /usr's mount: EPERM"
else
	skip "a host file's handle replayed inside" "name_to_handle_at does not work here: $hnd"
fi

# Descriptors the caller left open: fd 7 on a host file, 8 on a host
# directory, 9 appending to a host file.
echo "fd secret" > "$T/fdfile"
cp "$T/fdfile" "$T/fdfile.orig"
exec 7<"$T/fdfile" 8<"$T" 9>>"$T/fdfile"
bare readfd 7
is "$out" "ok fd secret" "control: the probe reads inherited fd 7 on the host"
run sr-limit --pids 64 --timeout 20s "$FP" readfd 7
is "$out" "ok fd secret" "control: sr-limit alone passes fd 7 on"
run sr-jail --keep-fd 7 --ro-bind "$T/p" /p sr-exec /p/fp readfd 7
is "$out" "ok fd secret" "control: sr-jail --keep-fd 7 passes it when asked"
chain readfd 7
is "$out" "EBADF" "through the chain fd 7 is closed"
chain openat 8 fdfile
is "$out" "EBADF" "a directory fd 8 cannot be used to openat a host file"
chain read /proc/self/fd/7
is "$out" "ENOENT" "/proc/self/fd/7 does not exist"
chain writefd 9 EVIL
is "$out" "EBADF" "fd 9 cannot be written"
exec 7<&- 8<&- 9>&-
ok "the host file is unchanged" cmp -s "$T/fdfile" "$T/fdfile.orig"

# sr-limit's report descriptor: the payload cannot forge its own report.
exec 3>"$T/ctl"
run "$FP" writefd 3 forged
exec 3>&-
is "$out:$(cat "$T/ctl")" "ok:forged" "control: the probe writes to an fd 3 the shell hands it"
run sr-limit --pids 64 --timeout 20s --stats-fd 3 sr-jail --ro-bind "$T/p" /p sr-exec \
	/p/fp writefd 3 '{"reason":"exit","status":0}' 3>"$T/report"
is "$out" EBADF "inside, sr-limit's --stats-fd 3 is not open: EBADF"
like "$(cat "$T/report")" '^\{"reason":"exit","status":1,' "the report is sr-limit's own (status 1), not the payload's"

# The host's service sockets (container engines, D-Bus, systemd).
socks=
for s in /run/docker.sock /var/run/docker.sock /run/podman/podman.sock /run/containerd/containerd.sock \
	/run/dbus/system_bus_socket /run/systemd/private /run/systemd/journal/socket \
	"/run/user/$(id -u)/bus" "/run/user/$(id -u)/podman/podman.sock"; do
	[ -S "$s" ] && socks="$socks $s"
done
if [ -n "$socks" ]; then
	run "${CHAIN[@]}" sh -c 'for s; do [ -e "$s" ] && echo "present: $s"; done; exit 0' sh $socks
	is "$out" "" "none of the host's service sockets ($socks ) exists inside"
else
	skip "the host's service sockets are absent inside" "this host has none of docker, podman, containerd, D-Bus or systemd sockets"
fi

# Device nodes: none can be made, and the host's are absent.
chain mknod /tmp/fifo p 0 0
is "$out" "mknod=ok" "control: mknod of a FIFO in the jail's /tmp works"
chain mknod /tmp/mem c 1 1
is "$out" "mknod=EPERM" "mknod of /dev/mem's device (c 1 1) is EPERM"
run sr-limit --pids 64 --timeout 20s sr-jail --uid 0 --ro-bind "$T/p" /p sr-exec /p/fp mknod /tmp/kmsg c 1 11
is "$out" "mknod=EPERM" "even as uid 0 inside (c 1 11, /dev/kmsg)"
chain mknod /dev/shm/sda b 8 0
is "$out" "mknod=EPERM" "mknod of a block device in /dev/shm is EPERM"
if [ -e /dev/mem ]; then
	ok "control: the host has /dev/mem" test -c /dev/mem
else
	skip "control: the host has /dev/mem" "this kernel has no /dev/mem (CONFIG_DEVMEM off), so its absence inside proves less"
fi
chain read /dev/mem
is "$out" "ENOENT" "/dev/mem does not exist inside"
hostdevs=$(ls /dev/kmsg /dev/tty /dev/console /dev/vsock /dev/fuse /dev/net/tun /dev/loop-control /dev/vda /dev/sda 2>/dev/null | tr '\n' ' ')
if [ -n "$hostdevs" ]; then
	run "${CHAIN[@]}" sh -c 'for d; do [ -e "$d" ] && echo "present: $d"; done; exit 0' sh $hostdevs
	is "$out" "" "none of the host's devices ($hostdevs) is present inside"
else
	skip "host devices absent inside" "none of the usual device nodes exists on this host"
fi

# /proc/sys: the host's settings cannot be written.
pattern=$(cat /proc/sys/kernel/core_pattern)
hostname=$(cat /proc/sys/kernel/hostname)
if run unshare -rin sh -c '"$1" write /proc/sys/net/ipv4/ip_forward 1 && "$1" write /proc/sys/kernel/shmmax 12345' sh "$FP" &&
   [ "$out" = "ok
ok" ]; then
	ok "control: in namespaces it owns, the probe writes /proc/sys (net, ipc)" true
else
	skip "control: /proc/sys writable in owned namespaces" "not on this kernel: $out"
fi
for f in kernel/core_pattern kernel/hostname net/ipv4/ip_forward kernel/shmmax vm/drop_caches; do
	chain write "/proc/sys/$f" 1
	is "$out" "EACCES" "writing /proc/sys/$f inside: EACCES"
done
run sr-limit --pids 64 --timeout 20s sr-jail --uid 0 --ro-bind "$T/p" /p sr-exec /p/fp write /proc/sys/kernel/core_pattern "|/tmp/x"
is "$out" "EACCES" "uid 0 inside cannot write core_pattern either"
is "$(cat /proc/sys/kernel/core_pattern):$(cat /proc/sys/kernel/hostname)" "$pattern:$hostname" \
	"the host's core_pattern and hostname are unchanged"

# A read-only bind cannot be made writable.
mkdir -p "$T/ro"
echo keep > "$T/ro/f"
if run unshare -rm sh -c 'mount --bind -o ro "$1" "$1" && "$2" write "$1/f" A; "$2" remount "$1" && "$2" write "$1/f" B' sh "$T/ro" "$FP" &&
   [ "$out" = "EROFS
remount=ok
mount_setattr=ok
ok" ]; then
	ok "control: outside the chain, a read-only bind it made can be remounted writable" true
else
	skip "control: remount of an owned read-only bind" "unshare -rm cannot here: $out"
fi
echo keep > "$T/ro/f"
run sr-limit --pids 64 --timeout 20s sr-jail --ro-bind "$T/p" /p --bind "$T/ro" /ro sr-exec /p/fp write /ro/f W
is "$out" "ok" "control: through a writable --bind the probe writes"
echo keep > "$T/ro/f"
for u in "$(id -u)" 0; do
	run sr-limit --pids 64 --timeout 20s sr-jail --uid $u --ro-bind "$T/p" /p --ro-bind "$T/ro" /ro sr-exec \
		sh -c '/p/fp remount /ro; /p/fp write /ro/f EVIL'
	is "$out" "remount=EPERM
mount_setattr=EPERM
EROFS" "--ro-bind, uid $u inside: remount and mount_setattr EPERM, the write EROFS"
done
is "$(cat "$T/ro/f")" keep "the host file under the read-only bind is unchanged"

done_testing
