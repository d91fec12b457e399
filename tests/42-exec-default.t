#!/bin/bash
# The default profile's denials, one probe syscall each: other ABIs are
# killed, namespace and mount calls, tracing, io_uring, keyrings, BPF,
# TIOCSTI with high bits, sockets beyond AF_UNIX (and with --net only
# inet and netlink route). Where the call would succeed without the
# filter here, that is checked first, so the refusal is the filter's.
. "$(dirname "$0")/lib.sh"

cc_probe_file probe exec_probe.c
P=$T/probe
run_sh() { run sh -c '"$@"' sh "$@"; }

# expect DESC WANT PROBE-ARGS...: under sr-exec (default profile), the
# probe prints WANT. Prints the unfiltered result as a diagnostic.
expect() {
	local desc=$1 want=$2
	shift 2
	run "$P" "$@"
	local plain=$out
	run sr-exec "$P" "$@"
	is "$out" "$want" "$desc"
	[ "$out" = "$want" ] || diag "without sr-exec: $plain"
}
# control DESC PROBE-ARGS...: the call succeeds without the filter.
control() {
	local desc=$1
	shift
	run "$P" "$@"
	if [ "$rc" = 0 ]; then ok "without the filter, $desc succeeds here" true
	else skip "without the filter, $desc succeeds here" "it does not on this kernel/user: $out"; fi
}

case $(uname -m) in
x86_64)
	run_sh sr-exec "$P" int80
	is "$rc" 159 "i386 syscall through int 0x80: killed by SIGSYS"
	is "$out" "" "int 0x80: the probe never returned from it"
	run_sh "$P" int80
	diag "int 0x80 without the filter: rc=$rc $out"
	run_sh sr-exec "$P" x32
	is "$rc" 159 "x32 syscall number (bit 30 set): killed by SIGSYS"
	;;
*)
	skip "i386 syscall through int 0x80: killed" "not x86_64"
	skip "x32 syscall: killed" "not x86_64"
	;;
esac

expect "ioctl TIOCSTI: EPERM" "ioctl: EPERM" ioctl 0x5412
expect "ioctl TIOCSTI with the high 32 bits set: EPERM" "ioctl: EPERM" ioctl 0xffffffff00005412
expect "ioctl TIOCLINUX: EPERM" "ioctl: EPERM" ioctl 0x541c
expect "ioctl TIOCLINUX with high bits set: EPERM" "ioctl: EPERM" ioctl 0x800000010000541c
expect "other ioctls reach the kernel (TCGETS on a non-tty: ENOTTY)" "ioctl: ENOTTY" ioctl 0x5401
expect "other ioctls with high bits reach the kernel" "ioctl: ENOTTY" ioctl 0xffffffff00005401

control "clone(CLONE_NEWUSER)" clone 0x10000000
expect "clone(CLONE_NEWUSER): EPERM" "clone: EPERM" clone 0x10000000
expect "clone(CLONE_NEWNET): EPERM" "clone: EPERM" clone 0x40000000
expect "clone(CLONE_NEWNS|CLONE_NEWPID): EPERM" "clone: EPERM" clone 0x20020000
expect "clone without namespace flags (fork): allowed" "clone: ok" clone 0
expect "clone of a thread: allowed" "thread: ok" thread
expect "clone3: ENOSYS (libc falls back to clone)" "clone3: ENOSYS" clone3
control "unshare(CLONE_NEWUSER)" unshare 0x10000000
expect "unshare(CLONE_NEWUSER): EPERM" "unshare: EPERM" unshare 0x10000000
control "io_uring_setup" io_uring_setup
expect "io_uring_setup: EPERM" "io_uring_setup: EPERM" io_uring_setup
control "PTRACE_ATTACH to a sibling" ptrace_sibling
expect "ptrace of a sibling: EPERM" "ptrace_sibling: EPERM" ptrace_sibling
expect "PTRACE_TRACEME: EPERM" "ptrace_traceme: EPERM" ptrace_traceme
control "name_to_handle_at" name_to_handle_at
expect "name_to_handle_at: EPERM" "name_to_handle_at: EPERM" name_to_handle_at
expect "open_by_handle_at: EPERM" "open_by_handle_at: EPERM" deny open_by_handle_at
control "perf_event_open on itself" perf_event_open
expect "perf_event_open: EPERM" "perf_event_open: EPERM" perf_event_open
control "keyctl" keyctl
expect "keyctl: EPERM" "keyctl: EPERM" keyctl
expect "bpf: EPERM" "bpf: EPERM" deny bpf
control "get_mempolicy" get_mempolicy
expect "a syscall not in the allowlist (get_mempolicy): ENOSYS" "get_mempolicy: ENOSYS" get_mempolicy
expect "an unknown syscall number (1000): ENOSYS" "raw: ENOSYS" raw 1000
expect "personality(READ_IMPLIES_EXEC): EPERM" "personality: EPERM" personality 0x400000
expect "personality(ADDR_NO_RANDOMIZE): EPERM" "personality: EPERM" personality 0x40000
expect "personality query: allowed" "personality: ok" personality 0xffffffff
expect "personality(PER_LINUX32): allowed" "personality: ok" personality 8
expect "prlimit64 of another process: EPERM" "prlimit: EPERM" prlimit 1
expect "prlimit64 of itself: allowed" "prlimit: ok" prlimit 0

# mount: refused for an unprivileged user anyway, so show the filter
# refusing it where the kernel would allow it: inside a user namespace.
mkdir "$T/mnt"
if unshare -rm "$P" mount "$T/mnt" >/dev/null 2>&1; then
	run unshare -rm sr-exec "$P" mount "$T/mnt"
	is "$out" "mount: EPERM" "mount of tmpfs in a user namespace (allowed there without the filter): EPERM"
else
	skip "mount in a user namespace: EPERM" "unshare -rm cannot mount here"
fi

# Every syscall the profiles refuse outright, called raw.
for name in $("$P" deny list); do
	run sr-exec "$P" deny "$name"
	is "$out" "$name: EPERM" "default refuses $name with EPERM"
done

# Sockets.
control "socket(AF_INET)" socket 2
expect "socket(AF_INET): EPERM" "socket: EPERM" socket 2
expect "socket(AF_INET6): EPERM" "socket: EPERM" socket 10
expect "socket(AF_NETLINK, NETLINK_ROUTE) without --net: EPERM" "socket: EPERM" socket 16,0
expect "socket(AF_PACKET): EPERM" "socket: EPERM" socket 17
expect "socket(AF_UNIX): allowed" "socket: ok" socket 1
expect "socket(AF_UNIX) with garbage in the high bits: EPERM (fails closed)" "socket: EPERM" socket 0x100000001
expect "socketpair(AF_UNIX): allowed" "socketpair: ok" socketpair 1
expect "socketpair(AF_INET): EPERM" "socketpair: EPERM" socketpair 2
run sr-exec --net "$P" socket 2
is "$out" "socket: ok" "--net: socket(AF_INET) allowed"
run sr-exec --net "$P" socket 10
is "$out" "socket: ok" "--net: socket(AF_INET6) allowed"
run sr-exec --net "$P" socket 16,0
is "$out" "socket: ok" "--net: socket(AF_NETLINK, NETLINK_ROUTE) allowed"
run sr-exec --net "$P" socket 16,9
is "$out" "socket: EPERM" "--net: socket(AF_NETLINK, NETLINK_AUDIT): EPERM"
run sr-exec --net "$P" socket 17
is "$out" "socket: EPERM" "--net: socket(AF_PACKET): EPERM"
run sr-exec --net "$P" deny ptrace
is "$out" "ptrace: EPERM" "--net changes nothing else"

done_testing
