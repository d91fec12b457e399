/* sp.c: the probe of tests/escape/30-syscalls.t (also run through run_code by
   tests/escape/90-run-code.t). */
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
/* int80: i386 getpid */
static int mode_int80(char **argv, unsigned long a)
{
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
	printf("int80 returned %ld\n", r);
	return 0;
}

/* x32: x32 getpid: bit 30 set */
static int mode_x32(char **argv, unsigned long a)
{
	long r = syscall(0x40000000L | SYS_getpid);
	printf("x32 returned %ld\n", r < 0 ? -errno : r);
	return 0;
}

static int mode_io_uring(char **argv, unsigned long a)
{
	unsigned char params[120] = {0};
	return say("io_uring_setup", syscall(SYS_io_uring_setup, 4, params));
}

/* bpf: a map, and a command no kernel has */
static int mode_bpf(char **argv, unsigned long a)
{
	union bpf_attr at;
	memset(&at, 0, sizeof at);
	at.map_type = BPF_MAP_TYPE_ARRAY;
	at.key_size = 4;
	at.value_size = 4;
	at.max_entries = 1;
	int bad = say("bpf_map_create", syscall(SYS_bpf, BPF_MAP_CREATE, &at, sizeof at));
	return bad | say("bpf_bogus", syscall(SYS_bpf, 9999, &at, sizeof at));
}

/* perf: count its own task clock, user only */
static int mode_perf(char **argv, unsigned long a)
{
	struct perf_event_attr pa;
	memset(&pa, 0, sizeof pa);
	pa.type = PERF_TYPE_SOFTWARE;
	pa.size = sizeof pa;
	pa.config = PERF_COUNT_SW_TASK_CLOCK;
	pa.exclude_kernel = 1;
	pa.exclude_hv = 1;
	return say("perf_event_open", syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0));
}

static int mode_keys(char **argv, unsigned long a)
{
	int bad = say("keyctl", syscall(SYS_keyctl, 0L, -3L, 0L));  /* GET_KEYRING_ID @s */
	bad |= say("add_key", syscall(SYS_add_key, "user", "sr-esc", "x", 1, -3L));
	return bad | say("request_key", syscall(SYS_request_key, "user", "sr-esc", NULL, 0L));
}

/* newmount: fsopen..move_mount a tmpfs on DIR */
static int mode_newmount(char **argv, unsigned long a)
{
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

static int mode_clone3(char **argv, unsigned long a)
{
	struct clone_args ca;
	memset(&ca, 0, sizeof ca);
	ca.flags = a;
	ca.exit_signal = SIGCHLD;
	return say("clone3", reap(syscall(SYS_clone3, &ca, sizeof ca)));
}

/* personality: set A, then show what is in force */
static int mode_personality(char **argv, unsigned long a)
{
	int bad = say("personality", personality(a));
	printf("now=%#x\n", personality(0xffffffff));
	return bad;
}

int main(int argc, char **argv)
{
	const char *m = argv[1];
	unsigned long a = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(m, "int80"))
		return mode_int80(argv, a);
	if (!strcmp(m, "x32"))
		return mode_x32(argv, a);
	if (!strcmp(m, "io_uring"))
		return mode_io_uring(argv, a);
	if (!strcmp(m, "bpf"))
		return mode_bpf(argv, a);
	if (!strcmp(m, "perf"))
		return mode_perf(argv, a);
	if (!strcmp(m, "uffd"))          /* UFFD_USER_MODE_ONLY: unprivileged */
		return say("userfaultfd", syscall(SYS_userfaultfd, O_CLOEXEC | 1));
	if (!strcmp(m, "keys"))
		return mode_keys(argv, a);
	if (!strcmp(m, "newmount"))
		return mode_newmount(argv, a);
	if (!strcmp(m, "open_tree"))     /* a detached copy of the mount at DIR */
		return say("open_tree", syscall(SYS_open_tree, AT_FDCWD, argv[2], OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC));
	if (!strcmp(m, "clone3"))
		return mode_clone3(argv, a);
	if (!strcmp(m, "clone"))
		return say("clone", reap(syscall(SYS_clone, a | SIGCHLD, 0L, 0L, 0L, 0L)));
	if (!strcmp(m, "unshare"))
		return say("unshare", unshare((int)a));
	if (!strcmp(m, "personality"))
		return mode_personality(argv, a);
	fprintf(stderr, "sp: unknown mode %s\n", m);
	return 2;
}
