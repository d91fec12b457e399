/* exec_probe.c - one syscall per run, for the sr-exec tests.
 *
 *   exec_probe NAME [ARG]
 *
 * prints "NAME: ok" (exit 0) or "NAME: ERRNO-NAME" (exit 1) for the
 * result of that one call. A call the filter kills never prints. The
 * "deny" mode makes a raw call of the named syscall with zero arguments,
 * for the list of syscalls the profiles refuse outright. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/netlink.h>

static const char *ename(int e)
{
	static const struct { int e; const char *n; } t[] = {
		{EPERM, "EPERM"}, {ENOSYS, "ENOSYS"}, {EACCES, "EACCES"},
		{EINVAL, "EINVAL"}, {EFAULT, "EFAULT"}, {ENOTTY, "ENOTTY"},
		{EBADF, "EBADF"}, {ENOENT, "ENOENT"}, {ESRCH, "ESRCH"},
		{EAFNOSUPPORT, "EAFNOSUPPORT"}, {EOPNOTSUPP, "EOPNOTSUPP"},
		{EEXIST, "EEXIST"}, {EROFS, "EROFS"}, {EXDEV, "EXDEV"},
		{EPROTONOSUPPORT, "EPROTONOSUPPORT"}, {42, "E42"},
	};
	static char buf[16];
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (t[i].e == e)
			return t[i].n;
	snprintf(buf, sizeof buf, "E%d", e);
	return buf;
}

static int report(const char *what, long r)
{
	if (r >= 0) {
		printf("%s: ok\n", what);
		return 0;
	}
	printf("%s: %s\n", what, ename(errno));
	return 1;
}

/* Syscalls both built-in profiles refuse with EPERM. */
static const struct { const char *name; long nr; } denied[] = {
	{"mount", SYS_mount}, {"umount2", SYS_umount2}, {"pivot_root", SYS_pivot_root},
	{"chroot", SYS_chroot}, {"fsopen", SYS_fsopen}, {"fsmount", SYS_fsmount},
	{"fsconfig", SYS_fsconfig}, {"fspick", SYS_fspick}, {"open_tree", SYS_open_tree},
	{"move_mount", SYS_move_mount}, {"mount_setattr", SYS_mount_setattr},
	{"unshare", SYS_unshare}, {"setns", SYS_setns}, {"ptrace", SYS_ptrace},
	{"process_vm_readv", SYS_process_vm_readv},
	{"process_vm_writev", SYS_process_vm_writev}, {"kcmp", SYS_kcmp},
	{"pidfd_getfd", SYS_pidfd_getfd}, {"bpf", SYS_bpf},
	{"perf_event_open", SYS_perf_event_open}, {"userfaultfd", SYS_userfaultfd},
	{"io_uring_setup", SYS_io_uring_setup}, {"io_uring_enter", SYS_io_uring_enter},
	{"io_uring_register", SYS_io_uring_register}, {"keyctl", SYS_keyctl},
	{"add_key", SYS_add_key}, {"request_key", SYS_request_key},
	{"init_module", SYS_init_module}, {"finit_module", SYS_finit_module},
	{"delete_module", SYS_delete_module}, {"kexec_load", SYS_kexec_load},
	{"kexec_file_load", SYS_kexec_file_load}, {"reboot", SYS_reboot},
	{"swapon", SYS_swapon}, {"swapoff", SYS_swapoff},
	{"settimeofday", SYS_settimeofday}, {"clock_settime", SYS_clock_settime},
	{"adjtimex", SYS_adjtimex}, {"clock_adjtime", SYS_clock_adjtime},
	{"acct", SYS_acct}, {"quotactl", SYS_quotactl},
	{"lookup_dcookie", SYS_lookup_dcookie},
	{"open_by_handle_at", SYS_open_by_handle_at},
	{"name_to_handle_at", SYS_name_to_handle_at}, {"syslog", SYS_syslog},
	{"iopl", SYS_iopl}, {"ioperm", SYS_ioperm}, {"process_madvise", SYS_process_madvise},
	{"fanotify_init", SYS_fanotify_init}, {"vhangup", SYS_vhangup},
	{"sethostname", SYS_sethostname}, {"setdomainname", SYS_setdomainname},
};

/* What strict refuses besides: new processes, exec, every socket call. */
static const struct { const char *name; long nr; } strict_denied[] = {
	{"fork", SYS_fork}, {"vfork", SYS_vfork}, {"execveat", SYS_execveat},
	{"socket", SYS_socket}, {"socketpair", SYS_socketpair}, {"connect", SYS_connect},
	{"accept", SYS_accept}, {"accept4", SYS_accept4}, {"bind", SYS_bind},
	{"listen", SYS_listen}, {"getsockname", SYS_getsockname},
	{"getpeername", SYS_getpeername}, {"sendto", SYS_sendto},
	{"recvfrom", SYS_recvfrom}, {"sendmsg", SYS_sendmsg}, {"recvmsg", SYS_recvmsg},
	{"sendmmsg", SYS_sendmmsg}, {"recvmmsg", SYS_recvmmsg},
	{"shutdown", SYS_shutdown}, {"setsockopt", SYS_setsockopt},
	{"getsockopt", SYS_getsockopt},
};

#define deny_mode(list, name) table_mode(list, sizeof list / sizeof list[0], name)
static int table_mode(const void *list, size_t n, const char *name)
{
	const struct { const char *name; long nr; } *t = list;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(name, "list") == 0)
			printf("%s\n", t[i].name);
		else if (strcmp(t[i].name, name) == 0)
			return report(name, syscall(t[i].nr, 0L, 0L, 0L, 0L, 0L, 0L));
	}
	if (strcmp(name, "list") == 0)
		return 0;
	fprintf(stderr, "exec_probe: no syscall %s in the list\n", name);
	return 2;
}

/* i386 getpid through int 0x80: the x86_64 filter must kill. */
static int int80(void)
{
#if defined(__x86_64__)
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
	printf("int80: returned %ld\n", r);
	return 0;
#else
	printf("int80: not x86_64\n");
	return 3;
#endif
}

static int child_exit(void *arg)
{
	(void)arg;
	syscall(SYS_exit, 0);        /* this thread only */
	return 0;
}

static int do_clone(unsigned long flags)
{
	long r = syscall(SYS_clone, flags | SIGCHLD, 0L, 0L, 0L, 0L);
	if (r == 0)
		_exit(0);
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	return report("clone", r);
}

static int ptrace_sibling(void)
{
	pid_t a = fork();
	if (a == 0) {
		pause();
		_exit(0);
	}
	int p[2];
	if (pipe(p) < 0)
		return 2;
	pid_t b = fork();
	if (b == 0) {
		long r = ptrace(PTRACE_ATTACH, a, 0, 0);
		int e = errno;
		if (r == 0)
			ptrace(PTRACE_DETACH, a, 0, 0);
		(void)!write(p[1], &e, sizeof e);
		(void)!write(p[1], &r, sizeof r);
		_exit(0);
	}
	int e;
	long r;
	(void)!read(p[0], &e, sizeof e);
	(void)!read(p[0], &r, sizeof r);
	waitpid(b, NULL, 0);
	kill(a, SIGKILL);
	waitpid(a, NULL, 0);
	errno = e;
	return report("ptrace_sibling", r);
}

static int perf(void)
{
	struct perf_event_attr pa;
	memset(&pa, 0, sizeof pa);
	pa.type = PERF_TYPE_SOFTWARE;
	pa.size = sizeof pa;
	pa.config = PERF_COUNT_SW_TASK_CLOCK;
	pa.exclude_kernel = 1;
	pa.exclude_hv = 1;
	return report("perf_event_open", syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0));
}

static int handle(void)
{
	struct { struct file_handle fh; unsigned char buf[128]; } h;
	int mount_id;
	h.fh.handle_bytes = sizeof h.buf;
	return report("name_to_handle_at",
		      syscall(SYS_name_to_handle_at, AT_FDCWD, "/", &h.fh, &mount_id, 0));
}

static int sock(const char *arg)
{
	unsigned long fam = strtoul(arg, NULL, 0);
	long proto = 0;
	const char *comma = strchr(arg, ',');
	if (comma)
		proto = strtol(comma + 1, NULL, 0);
	long type = fam == AF_NETLINK ? SOCK_RAW : SOCK_STREAM;
	if (fam == AF_INET || fam == AF_INET6)
		type = SOCK_DGRAM;
	return report("socket", syscall(SYS_socket, fam, type, proto));
}

static int mode_clone3(char **argv, const char *arg)
{
	struct clone_args ca;
	memset(&ca, 0, sizeof ca);
	ca.exit_signal = SIGCHLD;
	long r = syscall(SYS_clone3, &ca, sizeof ca);
	if (r == 0)
		_exit(0);
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	return report("clone3", r);
}

static int mode_fork(char **argv, const char *arg)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return report("fork", pid);
}

/* thread: a thread's clone flags, via clone() */
static int mode_thread(char **argv, const char *arg)
{
	static char stack[65536];
	long r = clone(child_exit, stack + sizeof stack,
		       CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
		       CLONE_SYSVSEM, NULL);
	if (r > 0)
		usleep(10000);
	return report("thread", r);
}

static int mode_io_uring_setup(char **argv, const char *arg)
{
	unsigned char params[120];
	memset(params, 0, sizeof params);
	long r = syscall(SYS_io_uring_setup, 1, params);
	return report("io_uring_setup", r);
}

static int mode_socketpair(char **argv, const char *arg)
{
	int sv[2];
	return report("socketpair", socketpair((int)strtol(arg, NULL, 0), SOCK_STREAM, 0, sv));
}

/* prlimit: ARG: pid */
static int mode_prlimit(char **argv, const char *arg)
{
	struct { uint64_t cur, max; } rl;
	return report("prlimit", syscall(SYS_prlimit64, strtol(arg, NULL, 0), 7L, NULL, &rl));
}

/* execve: ARG: program, run with no arguments */
static int mode_execve(char **argv, const char *arg)
{
	char *av[] = {(char *)arg, NULL};
	execv(arg, av);
	return report("execve", -1);
}

/* abstract: connect to abstract unix socket ARG */
static int mode_abstract(char **argv, const char *arg)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un_abs { sa_family_t f; char p[108]; } sa;
	memset(&sa, 0, sizeof sa);
	sa.f = AF_UNIX;
	size_t n = strlen(arg);
	memcpy(sa.p + 1, arg, n < 100 ? n : 100);
	return report("abstract", connect(fd, (struct sockaddr *)&sa,
					  (socklen_t)(sizeof(sa_family_t) + 1 + n)));
}

/* The probes of processes, namespaces and mounts; *found 0 when m is none of them. */
static int processes(const char *m, char **argv, const char *arg, int *found)
{
	*found = 1;
	if (!strcmp(m, "deny"))
		return deny_mode(denied, arg);
	if (!strcmp(m, "strict"))
		return deny_mode(strict_denied, arg);
	if (!strcmp(m, "int80"))
		return int80();
	if (!strcmp(m, "x32"))       /* x32 getpid: bit 30 set */
		return report("x32", syscall(0x40000000L | SYS_getpid));
	if (!strcmp(m, "ioctl"))     /* request compared on the low 32 bits */
		return report("ioctl", syscall(SYS_ioctl, 0L, strtoul(arg, NULL, 0), "x"));
	if (!strcmp(m, "clone"))
		return do_clone(strtoul(arg, NULL, 0));
	if (!strcmp(m, "clone3"))
		return mode_clone3(argv, arg);
	if (!strcmp(m, "fork"))
		return mode_fork(argv, arg);
	if (!strcmp(m, "thread"))
		return mode_thread(argv, arg);
	if (!strcmp(m, "unshare"))
		return report("unshare", unshare((int)strtoul(arg, NULL, 0)));
	if (!strcmp(m, "mount"))
		return report("mount", mount("none", arg, "tmpfs", 0, NULL));
	if (!strcmp(m, "io_uring_setup"))
		return mode_io_uring_setup(argv, arg);
	*found = 0;
	return 0;
}

/* The other probes: tracing, keys, sockets, calls by number, files; *found 0 when m is none of them. */
static int others(const char *m, char **argv, const char *arg, int *found)
{
	*found = 1;
	if (!strcmp(m, "ptrace_sibling"))
		return ptrace_sibling();
	if (!strcmp(m, "ptrace_traceme"))
		return report("ptrace_traceme", ptrace(PTRACE_TRACEME, 0, 0, 0));
	if (!strcmp(m, "name_to_handle_at"))
		return handle();
	if (!strcmp(m, "perf_event_open"))
		return perf();
	if (!strcmp(m, "keyctl"))    /* KEYCTL_GET_KEYRING_ID of the session keyring */
		return report("keyctl", syscall(SYS_keyctl, 0L, -3L, 0L));
	if (!strcmp(m, "socket"))    /* ARG: family[,protocol] */
		return sock(arg);
	if (!strcmp(m, "socketpair"))
		return mode_socketpair(argv, arg);
	if (!strcmp(m, "personality"))
		return report("personality", syscall(SYS_personality, strtoul(arg, NULL, 0)));
	if (!strcmp(m, "prlimit"))
		return mode_prlimit(argv, arg);
	if (!strcmp(m, "raw"))       /* ARG: syscall number, no arguments */
		return report("raw", syscall(strtol(arg, NULL, 0), 0L, 0L, 0L, 0L, 0L, 0L));
	if (!strcmp(m, "get_mempolicy"))
		return report("get_mempolicy", syscall(SYS_get_mempolicy, NULL, NULL, 0L, 0L, 0L));
	if (!strcmp(m, "getppid"))
		return report("getppid", syscall(SYS_getppid));
	if (!strcmp(m, "mseal"))
		return report("mseal", syscall(462, 0L, 0L, 0L));
	if (!strcmp(m, "execve"))
		return mode_execve(argv, arg);
	if (!strcmp(m, "kill"))      /* ARG: pid, signal 0 */
		return report("kill", kill((pid_t)strtol(arg, NULL, 0), 0));
	if (!strcmp(m, "kill_term")) /* ARG: pid */
		return report("kill_term", kill((pid_t)strtol(arg, NULL, 0), SIGTERM));
	if (!strcmp(m, "abstract"))
		return mode_abstract(argv, arg);
	if (!strcmp(m, "open_read"))
		return report("open_read", open(arg, O_RDONLY | O_CLOEXEC));
	if (!strcmp(m, "open_write"))
		return report("open_write", open(arg, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	*found = 0;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: exec_probe NAME [ARG]\n");
		return 2;
	}
	const char *m = argv[1], *arg = argc > 2 ? argv[2] : "0";
	setvbuf(stdout, NULL, _IONBF, 0);
	int found, r = processes(m, argv, arg, &found);
	if (found)
		return r;
	r = others(m, argv, arg, &found);
	if (found)
		return r;
	fprintf(stderr, "exec_probe: unknown probe %s\n", m);
	return 2;
}
