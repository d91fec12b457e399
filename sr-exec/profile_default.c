/* profile_default.c - the built-in profiles, default and strict.
 *
 * Both are allowlists: a syscall not named here answers ENOSYS, which is
 * what a kernel too old for it would say, so programs take their usual
 * fallback. Syscalls that reach past the sandbox (mounts, namespaces,
 * tracing other processes, kernel keyrings, modules, BPF, io_uring, the
 * clock) are refused with EPERM, which programs treat as "not allowed
 * here". The man page lists the same and says why. */
#include <errno.h>
#include <linux/netlink.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "exec.h"
#include "sr.h"

#define DENY SCMP_ACT_ERRNO(EPERM)

/* Files, memory, time, signals, polling, IPC inside the sandbox. */
static const char *const common[] = {
	/* file descriptors and file I/O */
	"read", "write", "readv", "writev", "pread64", "pwrite64", "preadv",
	"pwritev", "preadv2", "pwritev2", "open", "openat", "openat2", "creat",
	"close", "close_range", "lseek", "_llseek", "dup", "dup2", "dup3",
	"fcntl", "fcntl64", "flock", "fsync", "fdatasync", "sync", "syncfs",
	"sync_file_range", "truncate", "ftruncate", "fallocate", "fadvise64",
	"readahead", "sendfile", "copy_file_range", "splice", "tee",
	/* names and metadata */
	"stat", "fstat", "lstat", "newfstatat", "statx", "statfs", "fstatfs",
	"access", "faccessat", "faccessat2", "getdents", "getdents64",
	"getcwd", "chdir", "fchdir", "rename", "renameat", "renameat2",
	"mkdir", "mkdirat", "rmdir", "link", "linkat", "unlink", "unlinkat",
	"symlink", "symlinkat", "readlink", "readlinkat", "chmod", "fchmod",
	"fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
	"umask", "utime", "utimes", "utimensat", "futimesat", "mknod",
	"mknodat", "getxattr", "lgetxattr", "fgetxattr", "listxattr",
	"llistxattr", "flistxattr", "setxattr", "lsetxattr", "fsetxattr",
	"removexattr", "lremovexattr", "fremovexattr", "getxattrat",
	"listxattrat", "setxattrat", "removexattrat", "file_getattr",
	"file_setattr", "inotify_init", "inotify_init1", "inotify_add_watch",
	"inotify_rm_watch", "memfd_create",
	/* memory */
	"brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "mlock",
	"mlock2", "munlock", "mlockall", "munlockall", "mincore", "msync",
	"remap_file_pages", "pkey_alloc", "pkey_free", "pkey_mprotect",
	"membarrier", "map_shadow_stack", "mseal",
	/* this process and its threads */
	"exit", "exit_group", "wait4", "waitid", "kill", "tkill", "tgkill",
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigsuspend",
	"rt_sigpending", "rt_sigtimedwait", "rt_sigqueueinfo",
	"rt_tgsigqueueinfo", "sigaltstack", "pause", "getpid", "getppid",
	"gettid", "getuid", "geteuid", "getgid", "getegid", "getresuid",
	"getresgid", "getgroups", "setuid", "setgid", "setreuid", "setregid",
	"setresuid", "setresgid", "setgroups", "setfsuid", "setfsgid",
	"getpgid", "setpgid", "getpgrp", "getsid", "setsid", "prctl",
	"arch_prctl", "set_tid_address", "set_robust_list", "get_robust_list",
	"futex", "futex_waitv", "futex_wake", "futex_wait", "futex_requeue",
	"rseq", "sched_yield", "sched_getaffinity", "sched_setaffinity",
	"sched_getparam", "sched_setparam", "sched_getscheduler",
	"sched_setscheduler", "sched_get_priority_max",
	"sched_get_priority_min", "sched_rr_get_interval", "sched_getattr",
	"sched_setattr", "getpriority", "setpriority", "getrlimit",
	"setrlimit", "getrusage", "times", "uname", "sysinfo", "capget",
	"capset", "getrandom", "restart_syscall", "ioprio_get", "ioprio_set",
	"getcpu", "get_thread_area", "set_thread_area", "seccomp",
	"landlock_create_ruleset", "landlock_add_rule",
	"landlock_restrict_self", "pidfd_open", "pidfd_send_signal",
	/* time */
	"clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep",
	"gettimeofday", "time", "alarm", "getitimer", "setitimer",
	"timer_create", "timer_settime", "timer_gettime", "timer_getoverrun",
	"timer_delete", "timerfd_create", "timerfd_settime", "timerfd_gettime",
	/* waiting for events */
	"poll", "ppoll", "select", "pselect6", "_newselect", "epoll_create",
	"epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait",
	"epoll_pwait2", "eventfd", "eventfd2", "signalfd", "signalfd4",
	"pipe", "pipe2",
	/* System V and POSIX IPC, Linux AIO (not io_uring) */
	"shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semtimedop",
	"semctl", "msgget", "msgsnd", "msgrcv", "msgctl", "mq_open",
	"mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
	"mq_getsetattr", "io_setup", "io_destroy", "io_submit", "io_cancel",
	"io_getevents",
	NULL,
};

/* Refused with EPERM by both profiles. */
static const char *const denied[] = {
	/* mounts, old and new API, and changing root */
	"mount", "umount", "umount2", "pivot_root", "chroot", "fsopen",
	"fsmount", "fsconfig", "fspick", "open_tree", "open_tree_attr",
	"move_mount", "mount_setattr",
	/* namespaces (clone's flags are checked below) */
	"unshare", "setns",
	/* reaching into other processes */
	"ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
	"pidfd_getfd", "process_madvise",
	/* large kernel attack surface */
	"bpf", "perf_event_open", "userfaultfd", "io_uring_setup",
	"io_uring_enter", "io_uring_register", "fanotify_init",
	/* kernel keyrings */
	"keyctl", "add_key", "request_key",
	/* the machine itself */
	"init_module", "finit_module", "delete_module", "kexec_load",
	"kexec_file_load", "reboot", "swapon", "swapoff", "settimeofday",
	"stime", "clock_settime", "adjtimex", "clock_adjtime", "acct",
	"quotactl", "quotactl_fd", "lookup_dcookie", "iopl", "ioperm",
	"syslog", "vhangup", "sethostname", "setdomainname",
	/* file handles bypass path-based checks */
	"open_by_handle_at", "name_to_handle_at",
	NULL,
};

static const char *const sockets[] = {
	"connect", "accept", "accept4", "bind", "listen", "getsockname",
	"getpeername", "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg",
	"recvmmsg", "shutdown", "setsockopt", "getsockopt", NULL,
};

#define NS_FLAGS (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | \
		  CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)
#if defined(__s390__)
#define CLONE_FLAGS_ARG 1          /* s390 swaps clone's first two arguments */
#else
#define CLONE_FLAGS_ARG 0
#endif

static void add_masked(struct sx_policy *p, const char *name, uint32_t action,
		       uint64_t mask, uint64_t val)
{
	sx_add_cmp(p, name, action, SCMP_CMP(CLONE_FLAGS_ARG, SCMP_CMP_MASKED_EQ, mask, val));
}

/* clone with any namespace flag: EPERM (one rule per flag, all disjoint
 * from the allowing rule). `need` are flags that must be set to allow. */
static void clone_rules(struct sx_policy *p, uint64_t need)
{
	add_masked(p, "clone", SCMP_ACT_ALLOW, NS_FLAGS | need, need);
	for (uint64_t bit = 1; bit <= 0x80000000U; bit <<= 1) {
		if ((NS_FLAGS & bit) || (need & bit))
			add_masked(p, "clone", DENY, bit, (need & bit) ? 0 : bit);
	}
	/* clone3 passes its flags in memory, out of a filter's sight: ENOSYS
	 * makes libc fall back to clone, whose flags are checked. */
	sx_add_name(p, "clone3", SCMP_ACT_ERRNO(ENOSYS));
}

static void ioctl_rules(struct sx_policy *p)
{
	static const struct sx_case cases[] = {{TIOCSTI, DENY}, {TIOCLINUX, DENY}};
	sx_split(p, sx_syscall_nr("ioctl"), 1, cases, 2, SCMP_ACT_ALLOW, NULL);
}

/* personality: PER_LINUX, optionally with PER_LINUX32 and UNAME26 (both
 * harmless), or the query 0xffffffff; anything else, e.g. READ_IMPLIES_EXEC
 * or ADDR_NO_RANDOMIZE, is refused. On the low 32 bits (the kernel takes
 * an unsigned int): with M the other 30 bits, a value is refused when its
 * M-bits are mixed (then some M-bit that is 1 is followed, cyclically in
 * M's order, by one that is 0: one two-bit rule per position), or all 1
 * with a free bit 0. What is left is M all 0 (allowed) and the query. */
static void personality_rules(struct sx_policy *p)
{
	const uint32_t freebits = PER_LINUX32 | UNAME26, m = ~freebits;
	int nr = sx_syscall_nr("personality");
	struct scmp_arg_cmp c;
	uint32_t pos[32];
	unsigned k = 0;
	for (unsigned b = 0; b < 32; b++)
		if (m & (1U << b))
			pos[k++] = 1U << b;
	c = SCMP_A0(SCMP_CMP_MASKED_EQ, m, 0);
	sx_add(p, nr, SCMP_ACT_ALLOW, 1, &c, -1);
	c = SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffU, 0xffffffffU);
	sx_add(p, nr, SCMP_ACT_ALLOW, 1, &c, -1);
	for (unsigned i = 0; i < k; i++) {
		c = SCMP_A0(SCMP_CMP_MASKED_EQ, pos[i] | pos[(i + 1) % k], pos[i]);
		sx_add(p, nr, DENY, 1, &c, -1);
	}
	for (uint32_t f = freebits; f; f &= f - 1) {
		uint32_t bit = f & -f;
		c = SCMP_A0(SCMP_CMP_MASKED_EQ, m | bit, m);
		sx_add(p, nr, DENY, 1, &c, -1);
	}
}

/* Only this process's own limits: prlimit64(0, ...). */
static void prlimit_rules(struct sx_policy *p)
{
	static const struct sx_case self[] = {{0, SCMP_ACT_ALLOW}};
	sx_values(p, sx_syscall_nr("prlimit64"), 0, self, 1, DENY, NULL);
}

static void socket_rules(struct sx_policy *p, int net)
{
	static const struct sx_case unix_only[] = {{AF_UNIX, SCMP_ACT_ALLOW}};
	static const struct sx_case with_net[] = {
		{AF_UNIX, SCMP_ACT_ALLOW}, {AF_INET, SCMP_ACT_ALLOW},
		{AF_INET6, SCMP_ACT_ALLOW}, {AF_NETLINK, 0},
	};
	static const struct sx_case route[] = {{NETLINK_ROUTE, SCMP_ACT_ALLOW}};
	int nr = sx_syscall_nr("socket");
	if (!net) {
		sx_values(p, nr, 0, unix_only, 1, DENY, NULL);
	} else {
		sx_values(p, nr, 0, with_net, 4, DENY, NULL);
		struct scmp_arg_cmp netlink = SCMP_A0(SCMP_CMP_EQ, AF_NETLINK, 0);
		sx_values(p, nr, 2, route, 1, DENY, &netlink);
	}
	sx_values(p, sx_syscall_nr("socketpair"), 0, unix_only, 1, DENY, NULL);
	sx_add_names(p, sockets, SCMP_ACT_ALLOW);
}

static void common_rules(struct sx_policy *p)
{
	p->def_action = SCMP_ACT_ERRNO(ENOSYS);
	sx_add_names(p, common, SCMP_ACT_ALLOW);
	sx_add_names(p, denied, DENY);
	ioctl_rules(p);
	personality_rules(p);
	prlimit_rules(p);
}

void sx_profile_default(struct sx_policy *p, int net)
{
	p->name = "default";
	common_rules(p);
	sx_add_name(p, "execve", SCMP_ACT_ALLOW);
	sx_add_name(p, "execveat", SCMP_ACT_ALLOW);
	sx_add_name(p, "fork", SCMP_ACT_ALLOW);
	sx_add_name(p, "vfork", SCMP_ACT_ALLOW);
	clone_rules(p, 0);
	socket_rules(p, net);
}

/* strict: threads yes, new processes no, sockets no, and exactly one
 * execve: the one sr-exec makes, recognised by the address of its path
 * (see sx_exec_path_copy). */
void sx_profile_strict(struct sx_policy *p, const char *exec_path)
{
	static const char *const refused[] = {
		"fork", "vfork", "execveat", "socket", "socketpair", NULL,
	};
	p->name = "strict";
	common_rules(p);
	sx_add_names(p, refused, DENY);
	sx_add_names(p, sockets, DENY);
	clone_rules(p, CLONE_THREAD | CLONE_VM);
	int nr = sx_syscall_nr("execve");
	struct scmp_arg_cmp c = SCMP_A0(SCMP_CMP_EQ, (uint64_t)(uintptr_t)exec_path, 0);
	sx_add(p, nr, SCMP_ACT_ALLOW, 1, &c, -1);
	c.op = SCMP_CMP_NE;
	sx_add(p, nr, DENY, 1, &c, -1);
}

/* Copy path to a random address (a random page in the lower half of the
 * 47-bit address space, a random offset in it). The strict filter allows
 * execve only with exactly this pointer; the mapping is gone after exec,
 * so the payload would have to guess about 2^45 values, one refused
 * syscall per guess, to exec anything. */
const char *sx_exec_path_copy(const char *path)
{
	size_t len = strlen(path) + 1, page = 4096;
	size_t size = (len + 2 * page - 1) / page * page;
	for (int tries = 0; tries < 64; tries++) {
		uint64_t r[2];
		if (getrandom(r, sizeof r, 0) != sizeof r)
			sr_fatal_sys(SR_EXIT_SYS, "unable to get random bytes");
		uintptr_t base = (uintptr_t)(0x100000000ULL + (r[0] % (1ULL << 34)) * page);
		void *m = mmap((void *)base, size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (m == MAP_FAILED)
			continue;
		if ((uintptr_t)m != base) {     /* kernel without NOREPLACE */
			munmap(m, size);
			continue;
		}
		char *s = (char *)m + r[1] % (size - len);
		memcpy(s, path, len);
		return s;
	}
	sr_fatal(SR_EXIT_SYS, "unable to map the program path for the strict profile");
}
