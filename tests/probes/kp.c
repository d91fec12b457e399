/* kp.c: the probe of tests/escape/60-secrets.t (also run through run_code by
   tests/escape/90-run-code.t). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

extern char **environ;

/* Does file F hold S? -1 when F cannot be read. */
static int holds(const char *f, const char *s)
{
	static char buf[1 << 16];
	int fd = open(f, O_RDONLY);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < 0)
		return -1;
	for (ssize_t i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = '\n';
	buf[n] = 0;
	return strstr(buf, s) != NULL;
}
/* scan: look for A, given reversed, wherever it can */
static int mode_scan(char **argv, const char *a)
{
	int found = 0;          /* (reversed, so its own cmdline does not hold A) */
	size_t len = strlen(a);
	char *r = strdup(a);
	for (size_t i = 0; i < len; i++)
		r[i] = a[len - 1 - i];
	a = r;
	for (char **e = environ; *e; e++)
		if (strstr(*e, a)) { printf("found in environ\n"); found = 1; }
	DIR *d = opendir("/proc");
	for (struct dirent *de; d && (de = readdir(d));) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		char f[64];
		const char *what[] = {"environ", "cmdline"};
		for (int i = 0; i < 2; i++) {
			snprintf(f, sizeof f, "/proc/%s/%s", de->d_name, what[i]);
			if (holds(f, a) == 1) { printf("found in %s\n", f); found = 1; }
		}
	}
	if (!found)
		printf("absent\n");
	return 0;
}

/* agent: SSH_AUTH_SOCK, and connect to path A */
static int mode_agent(char **argv, const char *a)
{
	const char *v = getenv("SSH_AUTH_SOCK");
	printf("SSH_AUTH_SOCK=%s\n", v ? v : "unset");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	strncpy(sa.sun_path, a, sizeof sa.sun_path - 1);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (void *)&sa, sizeof sa) < 0) {
		printf("connect=%s\n", strerrorname_np(errno));
		return 1;
	}
	printf("connected\n");
	return 0;
}

static int mode_read(char **argv, const char *a)
{
	char b[256];
	int fd = open(a, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, b, sizeof b - 1);
	if (n < 0) { printf("%s\n", strerrorname_np(errno)); return 1; }
	b[n] = 0;
	b[strcspn(b, "\n")] = 0;
	printf("ok %s\n", b);
	return 0;
}

/* keyread: KEYCTL_READ of key A */
static int mode_keyread(char **argv, const char *a)
{
	char b[256];
	long n = syscall(SYS_keyctl, 11L, atol(a), b, (long)sizeof b - 1);
	if (n < 0) { printf("keyread=%s\n", strerrorname_np(errno)); return 1; }
	b[n < (long)sizeof b - 1 ? n : (long)sizeof b - 1] = 0;
	printf("keyread=ok %s\n", b);
	return 0;
}

/* keysearch: KEYCTL_SEARCH of @u for user key A */
static int mode_keysearch(char **argv, const char *a)
{
	long k = syscall(SYS_keyctl, 10L, -4L, "user", a, 0L);
	if (k < 0) { printf("keysearch=%s\n", strerrorname_np(errno)); return 1; }
	printf("keysearch=ok %ld\n", k);
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argv[1], *a = argc > 2 ? argv[2] : "";
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(m, "scan"))
		return mode_scan(argv, a);
	if (!strcmp(m, "agent"))
		return mode_agent(argv, a);
	if (!strcmp(m, "read"))
		return mode_read(argv, a);
	if (!strcmp(m, "keyread"))
		return mode_keyread(argv, a);
	if (!strcmp(m, "keysearch"))
		return mode_keysearch(argv, a);
	fprintf(stderr, "kp: unknown mode %s\n", m);
	return 2;
}
