/* util.c - small system helpers. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sr.h"

void sr_supervisor_sigset(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGHUP);
}

int sr_open_nofollow(const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)flags | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
}

int sr_write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int r = sr_write_all(fd, s, strlen(s));
	int e = errno;
	close(fd);
	errno = e;
	return r;
}

void *sr_grow(void *v, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return v;
	size_t c = *cap ? *cap * 2 : 16;
	void *nv = c > SIZE_MAX / size ? NULL : realloc(v, c * size);
	if (!nv)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	*cap = c;
	return nv;
}

uint64_t sr_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int sr_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

char *sr_read_file(const char *path, size_t max, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	while (buf) {
		if (len + 1 >= cap) {
			if (cap > max) {
				errno = EFBIG;
				break;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		ssize_t n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (n == 0) {
			buf[len] = '\0';
			close(fd);
			if (lenp)
				*lenp = len;
			return buf;
		}
		len += (size_t)n;
	}
	int e = errno;
	free(buf);
	close(fd);
	errno = e;
	return NULL;
}

char **sr_sh_argv(char *const argv[])
{
	size_t n = 0;
	while (argv[n])
		n++;
	char **v = calloc(n + 2, sizeof *v);
	if (!v)
		return NULL;
	v[0] = "sh";
	for (size_t i = 1; i < n; i++)
		v[i + 1] = argv[i];
	return v;
}

extern char **environ;

/* PATH, or the usual directories when it is unset or empty. */
static const char *search_path(void)
{
	const char *path = getenv("PATH");
	return path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
}

/* Walk a PATH: the first entry of path joined to prog in buf (an empty
 * entry is the current directory, as for execvp), buf[0] NUL when that
 * does not fit. Returns the rest of path, NULL when there is none.
 * Allocates nothing. */
static const char *path_next(const char *path, const char *prog, char buf[PATH_MAX])
{
	if (!*path)
		return NULL;
	const char *colon = strchr(path, ':');
	size_t dl = colon ? (size_t)(colon - path) : strlen(path);
	size_t pl = strlen(prog);
	buf[0] = '\0';
	if (dl + 1 + pl < PATH_MAX) {
		memcpy(buf, path, dl);
		if (dl)
			buf[dl++] = '/';
		memcpy(buf + dl, prog, pl + 1);
	}
	return colon ? colon + 1 : path + strlen(path);
}

/* One candidate: exec it, or, when the kernel says ENOEXEC (no #!, not an
 * ELF), hand it to /bin/sh as POSIX execvp does. */
static void exec_one(const char *path, char *const argv[], char **sh_argv)
{
	execve(path, argv, environ);
	if (errno == ENOEXEC && sh_argv) {
		sh_argv[1] = (char *)path;
		execve("/bin/sh", sh_argv, environ);
		errno = ENOEXEC;
	}
}

void sr_execvp(char *const argv[], char **sh_argv)
{
	const char *prog = argv[0];
	if (!*prog) {
		errno = ENOENT;
		return;
	}
	if (strchr(prog, '/')) {
		exec_one(prog, argv, sh_argv);
		return;
	}
	int err = ENOENT;
	char buf[PATH_MAX];
	for (const char *path = search_path(); (path = path_next(path, prog, buf));) {
		if (!buf[0])
			continue;
		exec_one(buf, argv, sh_argv);
		/* As execvp: look on past what is not there, and past what
		 * may not be run (reported if nothing else runs); stop at any
		 * other failure. */
		switch (errno) {
		case EACCES:
			err = EACCES;
			break;
		case ENOENT: case ENOTDIR: case ESTALE: case ENODEV: case ETIMEDOUT:
			break;
		default:
			return;
		}
	}
	errno = err;
}

void sr_exec(char *const argv[])
{
	char **sh_argv = sr_sh_argv(argv);
	sr_execvp(argv, sh_argv);
	int e = errno;
	free(sh_argv);
	errno = e;
	sr_fatal_run(argv[0]);
}

int sr_exec_exit(int err)
{
	return err == ENOENT || err == ENOTDIR ? SR_EXIT_NOTFOUND : SR_EXIT_NOEXEC;
}

int sr_status_to_exit(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return SR_EXIT_SYS;
}

void sr_die_like(int status)
{
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		struct rlimit none = { 0, 0 };
		sigset_t set;
		(void)setrlimit(RLIMIT_CORE, &none);
		signal(sig, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		kill(getpid(), sig);
	}
	_exit(sr_status_to_exit(status));   /* or a signal that does not kill */
}

void sr_cloexec_from(int lowfd, const int *keep, size_t nkeep)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d) {
		for (int fd = lowfd; fd < 1024; fd++) {
			int kept = 0;
			for (size_t i = 0; i < nkeep; i++)
				kept |= keep[i] == fd;
			if (!kept)
				(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
		}
		return;
	}
	int self = dirfd(d);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		if (*end || end == e->d_name || fd < lowfd || fd == self)
			continue;
		int kept = 0;
		for (size_t i = 0; i < nkeep; i++)
			kept |= keep[i] == fd;
		if (!kept)
			(void)fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	}
	closedir(d);
}

/* A name no one can guess, for a temporary file in a directory that
 * someone else may write. */
static void random_name(char *buf, size_t size, const char *base)
{
	uint64_t r;
	if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
		r = sr_now_ns() ^ ((uint64_t)getpid() << 32);
	snprintf(buf, size, ".%.200s.%016llx.tmp", base, (unsigned long long)r);
}

/* The directory may be one a sandboxed program can write (a job's
 * workspace): it is opened without following a link in its last
 * component, the temporary file is made with a random name, O_EXCL and
 * O_NOFOLLOW, and the rename replaces whatever is at the name (a planted
 * link included) without following it. */
int sr_write_file_atomic(const char *path, const char *buf, size_t len)
{
	char dir[PATH_MAX], tmp[256];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	size_t dlen = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
	if (*base == '\0' || dlen >= sizeof dir) {
		errno = *base ? ENAMETOOLONG : EISDIR;
		return -1;
	}
	if (slash)
		memcpy(dir, path, dlen);
	else
		dir[dlen++] = '.';
	dir[dlen] = '\0';

	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	int fd = -1;
	for (int i = 0; i < 16 && fd < 0; i++) {
		random_name(tmp, sizeof tmp, base);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	int r = -1, e = errno;
	if (fd >= 0) {
		int wrote = sr_write_all(fd, buf, len) == 0 && fsync(fd) == 0;
		e = errno;
		if (close(fd) == 0 && wrote && renameat(dfd, tmp, dfd, base) == 0)
			r = 0;
		else if (wrote)
			e = errno;
		if (r < 0)
			unlinkat(dfd, tmp, 0);
	}
	close(dfd);
	errno = e;
	return r;
}

const char *sr_signal_name(int sig)
{
	static const char *const names[] = {
		[SIGHUP] = "HUP", [SIGINT] = "INT", [SIGQUIT] = "QUIT",
		[SIGILL] = "ILL", [SIGTRAP] = "TRAP", [SIGABRT] = "ABRT",
		[SIGBUS] = "BUS", [SIGFPE] = "FPE", [SIGKILL] = "KILL",
		[SIGUSR1] = "USR1", [SIGSEGV] = "SEGV", [SIGUSR2] = "USR2",
		[SIGPIPE] = "PIPE", [SIGALRM] = "ALRM", [SIGTERM] = "TERM",
		[SIGSTKFLT] = "STKFLT", [SIGCHLD] = "CHLD", [SIGCONT] = "CONT",
		[SIGSTOP] = "STOP", [SIGTSTP] = "TSTP", [SIGTTIN] = "TTIN",
		[SIGTTOU] = "TTOU", [SIGURG] = "URG", [SIGXCPU] = "XCPU",
		[SIGXFSZ] = "XFSZ", [SIGVTALRM] = "VTALRM", [SIGPROF] = "PROF",
		[SIGWINCH] = "WINCH", [SIGIO] = "IO", [SIGPWR] = "PWR",
		[SIGSYS] = "SYS",
	};
	if (sig <= 0 || (size_t)sig >= sizeof names / sizeof *names)
		return NULL;
	return names[sig];
}

char *sr_find_program(const char *prog)
{
	if (strchr(prog, '/')) {
		if (access(prog, X_OK) < 0)
			return NULL;
		return realpath(prog, NULL);
	}
	int saw_eacces = 0;
	char buf[PATH_MAX];
	for (const char *path = search_path(); (path = path_next(path, prog, buf));) {
		struct stat st;
		if (buf[0] && stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(buf, X_OK) == 0)
				return realpath(buf, NULL);
			saw_eacces = 1;
		}
	}
	errno = saw_eacces ? EACCES : ENOENT;
	return NULL;
}
