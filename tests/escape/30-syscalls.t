#!/bin/bash
# Escapes through the kernel's wider interfaces, tried through the whole
# chain (sr-limit sr-jail sr-exec): other syscall ABIs, io_uring, BPF,
# perf, userfaultfd, keyrings, the new mount API, namespace flags of
# clone3/clone/unshare, personality. Each refusal comes with a control
# that reaches the kernel where the filter is absent.
. "$(dirname "$0")/../lib.sh"

need_userns

mkdir -p "$T/p"
cc_probe p/sp "$(cat <<'C'
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/mount.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int say(const char *what, long r)
{
	if (r < 0) { printf("%s=%s\n", what, strerrorname_np(errno)); return 1; }
	printf("%s=ok\n", what);
	return 0;
}
static long reap(long r)   /* the child of a fork-like call exits at once */
{
	if (r == 0)
		_exit(0);
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	return r;
}
int main(int argc, char **argv)
{
	const char *m = argv[1];
	unsigned long a = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(m, "int80")) {       /* i386 getpid */
		long r;
		__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
		printf("int80 returned %ld\n", r);
		return 0;
	}
	if (!strcmp(m, "x32")) {         /* x32 getpid: bit 30 set */
		long r = syscall(0x40000000L | SYS_getpid);
		printf("x32 returned %ld\n", r < 0 ? -errno : r);
		return 0;
	}
	if (!strcmp(m, "io_uring")) {
		unsigned char params[120] = {0};
		return say("io_uring_setup", syscall(SYS_io_uring_setup, 4, params));
	}
	if (!strcmp(m, "bpf")) {         /* a map, and a command no kernel has */
		union bpf_attr at;
		memset(&at, 0, sizeof at);
		at.map_type = BPF_MAP_TYPE_ARRAY;
		at.key_size = 4;
		at.value_size = 4;
		at.max_entries = 1;
		int bad = say("bpf_map_create", syscall(SYS_bpf, BPF_MAP_CREATE, &at, sizeof at));
		return bad | say("bpf_bogus", syscall(SYS_bpf, 9999, &at, sizeof at));
	}
	if (!strcmp(m, "perf")) {        /* count its own task clock, user only */
		struct perf_event_attr pa;
		memset(&pa, 0, sizeof pa);
		pa.type = PERF_TYPE_SOFTWARE;
		pa.size = sizeof pa;
		pa.config = PERF_COUNT_SW_TASK_CLOCK;
		pa.exclude_kernel = 1;
		pa.exclude_hv = 1;
		return say("perf_event_open", syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0));
	}
	if (!strcmp(m, "uffd"))          /* UFFD_USER_MODE_ONLY: unprivileged */
		return say("userfaultfd", syscall(SYS_userfaultfd, O_CLOEXEC | 1));
	if (!strcmp(m, "keys")) {
		int bad = say("keyctl", syscall(SYS_keyctl, 0L, -3L, 0L));  /* GET_KEYRING_ID @s */
		bad |= say("add_key", syscall(SYS_add_key, "user", "sr-esc", "x", 1, -3L));
		return bad | say("request_key", syscall(SYS_request_key, "user", "sr-esc", NULL, 0L));
	}
	if (!strcmp(m, "newmount")) {    /* fsopen..move_mount a tmpfs on DIR */
		const char *dir = argv[2];
		long fs = syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
		if (say("fsopen", fs))
			return 1;
		if (say("fsconfig", syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0)))
			return 1;
		long mnt = syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0);
		if (say("fsmount", mnt))
			return 1;
		return say("move_mount", syscall(SYS_move_mount, mnt, "", AT_FDCWD, dir, MOVE_MOUNT_F_EMPTY_PATH));
	}
	if (!strcmp(m, "open_tree"))     /* a detached copy of the mount at DIR */
		return say("open_tree", syscall(SYS_open_tree, AT_FDCWD, argv[2], OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC));
	if (!strcmp(m, "clone3")) {
		struct clone_args ca;
		memset(&ca, 0, sizeof ca);
		ca.flags = a;
		ca.exit_signal = SIGCHLD;
		return say("clone3", reap(syscall(SYS_clone3, &ca, sizeof ca)));
	}
	if (!strcmp(m, "clone"))
		return say("clone", reap(syscall(SYS_clone, a | SIGCHLD, 0L, 0L, 0L, 0L)));
	if (!strcmp(m, "unshare"))
		return say("unshare", unshare((int)a));
	if (!strcmp(m, "personality")) { /* set A, then show what is in force */
		int bad = say("personality", personality(a));
		printf("now=%#x\n", personality(0xffffffff));
		return bad;
	}
	fprintf(stderr, "sp: unknown mode %s\n", m);
	return 2;
}
C
)"
SP=$T/p/sp
CHAIN=(sr-limit --pids 64 --timeout 20s --stats "$T/s.json" sr-jail --ro-bind "$T/p" /p sr-exec)
chain() { run "${CHAIN[@]}" /p/sp "$@"; }
bare() { run "$SP" "$@"; }
stats() { json_get "$T/s.json" "$1"; }

# Other ABIs: the filter is written for x86_64 and kills the rest.
if [ "$(uname -m)" = x86_64 ]; then
	bare int80
	like "$out" "^int80 returned -?[0-9]+$" "control: int 0x80 returns on the host ($out)"
	chain int80
	is "$rc:$out" "159:" "i386 syscall through int 0x80: killed before it returns (128+SIGSYS)"
	is "$(stats status)" 159 "sr-limit's report gives status 159"
	bare x32
	like "$out" "^x32 returned -?[0-9]+$" "control: an x32 syscall number returns on the host ($out)"
	chain x32
	is "$rc:$out" "159:" "x32 syscall (bit 30 set): killed before it returns"
	is "$(stats status)" 159 "sr-limit's report gives status 159"
else
	for d in "int 0x80 control" "int 0x80 killed" "int 0x80 stats" "x32 control" "x32 killed" "x32 stats"; do
		skip "$d" "not x86_64 ($(uname -m))"
	done
fi

# control_ok DESC WANT ARGS...: the probe gets WANT bare, or a skip saying why not.
control_ok() {
	local desc=$1 want=$2
	shift 2
	bare "$@"
	if [ "$out" = "$want" ]; then ok "control: $desc on the host" true
	else skip "control: $desc on the host" "not for this user here: $(printf '%s' "$out" | tr '\n' ' ')"; fi
}

control_ok "io_uring_setup works" "io_uring_setup=ok" io_uring
chain io_uring
is "$out" "io_uring_setup=EPERM" "io_uring_setup: EPERM"

bare bpf
like "$out" "bpf_bogus=EINVAL" "control: bpf() reaches the kernel on the host (an unknown command: EINVAL; map: ${out%%$'\n'*})"
chain bpf
is "$out" "bpf_map_create=EPERM
bpf_bogus=EPERM" "bpf: EPERM for every command, known or not (refused before the kernel looks)"

control_ok "perf_event_open on itself works" "perf_event_open=ok" perf
chain perf
is "$out" "perf_event_open=EPERM" "perf_event_open: EPERM"

control_ok "userfaultfd(UFFD_USER_MODE_ONLY) works" "userfaultfd=ok" uffd
chain uffd
is "$out" "userfaultfd=EPERM" "userfaultfd: EPERM"
run "${CHAIN[@]}" sh -c 'test -e /dev/userfaultfd && echo present || echo absent'
is "$out" absent "no /dev/userfaultfd inside"

control_ok "keyctl, add_key and request_key work" "keyctl=ok
add_key=ok
request_key=ok" keys
chain keys
is "$out" "keyctl=EPERM
add_key=EPERM
request_key=EPERM" "keyctl, add_key, request_key: EPERM"

# The new mount API, which could rearrange the view of the filesystem.
mkdir -p "$T/mnt"
run unshare -rm "$SP" newmount "$T/mnt"
if [ "$out" = "fsopen=ok
fsconfig=ok
fsmount=ok
move_mount=ok" ]; then
	ok "control: in a user+mount namespace the probe mounts a tmpfs with fsopen..move_mount" true
else
	skip "control: fsopen..move_mount in a user+mount namespace" "not here: $(printf '%s' "$out $err" | tr '\n' ' ')"
fi
chain newmount /tmp
is "$out" "fsopen=EPERM" "fsopen: EPERM"
run sr-limit --pids 64 --timeout 20s sr-jail --uid 0 --ro-bind "$T/p" /p sr-exec /p/sp newmount /tmp
is "$out" "fsopen=EPERM" "fsopen as uid 0 inside: EPERM"
run unshare -rm "$SP" open_tree /tmp
if [ "$out" = "open_tree=ok" ]; then
	ok "control: open_tree(OPEN_TREE_CLONE) works in a user+mount namespace" true
else
	skip "control: open_tree in a user+mount namespace" "not here: $out $err"
fi
chain open_tree /usr
is "$out" "open_tree=EPERM" "open_tree(OPEN_TREE_CLONE) of /usr: EPERM"

# Namespace flags: clone3 cannot be checked (its flags are in memory), so
# it is ENOSYS and libc falls back to clone, whose flags are.
control_ok "clone3(CLONE_NEWUSER|CLONE_NEWNS) works" "clone3=ok" clone3 0x10020000
chain clone3 0x10020000
is "$out" "clone3=ENOSYS" "clone3 with namespace flags: ENOSYS"
chain clone3 0
is "$out" "clone3=ENOSYS" "clone3 without flags: ENOSYS too (a filter cannot see the flags)"
control_ok "clone(CLONE_NEWUSER|CLONE_NEWNET) works" "clone=ok" clone 0x50000000
chain clone 0x50000000
is "$out" "clone=EPERM" "clone(CLONE_NEWUSER|CLONE_NEWNET): EPERM"
chain clone 0
is "$out" "clone=ok" "control: a plain clone (fork) works inside"
control_ok "unshare(CLONE_NEWUSER|CLONE_NEWNS) works" "unshare=ok" unshare 0x10020000
chain unshare 0x10020000
is "$out" "unshare=EPERM" "unshare(CLONE_NEWUSER|CLONE_NEWNS): EPERM"
chain unshare 0x08000000
is "$out" "unshare=EPERM" "unshare(CLONE_NEWCGROUP): EPERM"
run "${CHAIN[@]}" unshare -r true
ok "the unshare(1) tool fails inside ($(printf '%s' "$err" | head -1))" test "$rc" != 0

# personality: no READ_IMPLIES_EXEC, no ADDR_NO_RANDOMIZE.
control_ok "personality(READ_IMPLIES_EXEC) works" "personality=ok
now=0x400000" personality 0x400000
chain personality 0x400000
is "$out" "personality=EPERM
now=0" "personality(READ_IMPLIES_EXEC): EPERM, and not in force"
control_ok "personality(ADDR_NO_RANDOMIZE) works" "personality=ok
now=0x40000" personality 0x40000
chain personality 0x40000
is "$out" "personality=EPERM
now=0" "personality(ADDR_NO_RANDOMIZE): EPERM, and not in force"
if command -v setarch >/dev/null; then
	run setarch "$(uname -m)" -R true
	is "$rc" 0 "control: setarch -R (no randomization) runs on the host"
	run "${CHAIN[@]}" setarch "$(uname -m)" -R true
	ok "setarch -R fails inside ($(printf '%s' "$err" | head -1))" test "$rc" != 0
else
	skip "control: setarch -R on the host" "no setarch here"
	skip "setarch -R fails inside" "no setarch here"
fi

# The filter cannot be shed: it is inherited through fork and exec.
run sh -c 'sh -c "grep ^Seccomp: /proc/self/status"'
like "$out" "Seccomp:[[:space:]]+0" "control: no filter on the test's own processes"
run "${CHAIN[@]}" sh -c 'sh -c "grep -E \"^(Seccomp|NoNewPrivs):\" /proc/self/status" | tr -s "\t" " "'
is "$out" "NoNewPrivs: 1
Seccomp: 2" "a grandchild inside still runs under the filter, with no_new_privs"

done_testing
