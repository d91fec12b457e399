/* rp.c: the probe of tests/escape/50-resources.t (also run through run_code by
   tests/escape/90-run-code.t). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *err(int e) { return e ? strerrorname_np(e) : "none"; }
static void *idle(void *arg) { (void)arg; pause(); return NULL; }
static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}
/* bomb: fork up to A children that each sleep B ms */
static int mode_bomb(char **argv, long a, long b, long n, int e)
{
	for (; n < a; n++) {
		pid_t p = fork();
		if (p == 0) { usleep((useconds_t)b * 1000); _exit(0); }
		if (p < 0) { e = errno; break; }
	}
	printf("forked %ld %s\n", n, err(e));
	usleep((useconds_t)b * 1000);
	return 0;
}

/* threads: start up to A idle threads */
static int mode_threads(char **argv, long a, long b, long n, int e)
{
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 65536);
	for (pthread_t t; n < a; n++)
		if ((e = pthread_create(&t, &at, idle, NULL)) != 0)
			break;
	printf("threads %ld %s\n", n, err(e));
	return 0;
}

/* spin: burn A ms of CPU time */
static int mode_spin(char **argv, long a, long b, long n, int e)
{
	while (cpu_s() * 1000 < a)
		;
	printf("done\n");
	return 0;
}

/* inotify: make up to A inotify instances, held B ms */
static int mode_inotify(char **argv, long a, long b, long n, int e)
{
	for (; n < a; n++)
		if (inotify_init1(IN_CLOEXEC) < 0) { e = errno; break; }
	printf("inotify %ld %s\n", n, err(e));
	usleep((useconds_t)b * 1000);
	return 0;
}

/* watches: watch up to A new files in directory argv[3] */
static int mode_watches(char **argv, long a, long b, long n, int e)
{
	int in = inotify_init1(IN_CLOEXEC);
	char path[4200];
	if (in < 0 || (mkdir(argv[3], 0700) < 0 && errno != EEXIST)) {
		printf("watches setup %s\n", err(errno));
		return 1;
	}
	for (; n < a; n++) {
		snprintf(path, sizeof path, "%s/%ld", argv[3], n);
		close(open(path, O_WRONLY | O_CREAT, 0600));
		if (inotify_add_watch(in, path, IN_MODIFY) < 0) { e = errno; break; }
	}
	printf("watches %ld %s\n", n, err(e));
	return 0;
}

/* fds: open up to A descriptors */
static int mode_fds(char **argv, long a, long b, long n, int e)
{
	for (; n < a; n++)
		if (open("/dev/null", O_RDONLY) < 0) { e = errno; break; }
	printf("opened %ld %s\n", n, err(e));
	return 0;
}

/* flood: write A bytes to stdout, or forever if 0 */
static int mode_flood(char **argv, long a, long b, long n, int e)
{
	static char buf[65536];
	memset(buf, 'x', sizeof buf);
	for (long left = a; a == 0 || left > 0; left -= sizeof buf)
		if (write(1, buf, a && left < (long)sizeof buf ? (size_t)left : sizeof buf) < 0) {
			fprintf(stderr, "flood: %s\n", err(errno));
			return 1;
		}
	return 0;
}

/* fill: write up to B MiB into file A */
static int mode_fill(char **argv, long a, long b, long n, int e)
{
	static char buf[1 << 20];
	memset(buf, 'x', sizeof buf);
	int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) { printf("open %s\n", err(errno)); return 1; }
	for (; n < b; n++) {
		ssize_t w = write(fd, buf, sizeof buf);
		if (w < (ssize_t)sizeof buf) { e = w < 0 ? errno : ENOSPC; break; }
	}
	if (!e && fsync(fd) < 0)
		e = errno;
	printf("wrote %ld %s\n", n, err(e));
	return 0;
}

/* alloc: allocate and touch A MiB */
static int mode_alloc(char **argv, long a, long b, long n, int e)
{
	char *p = malloc((size_t)a << 20);
	if (!p) { printf("alloc %s\n", err(errno)); return 1; }
	memset(p, 1, (size_t)a << 20);
	printf("alloc ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argv[1];
	long a = argc > 2 ? atol(argv[2]) : 0, b = argc > 3 ? atol(argv[3]) : 0;
	long n = 0;
	int e = 0;
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(m, "bomb"))
		return mode_bomb(argv, a, b, n, e);
	if (!strcmp(m, "threads"))
		return mode_threads(argv, a, b, n, e);
	if (!strcmp(m, "spin"))
		return mode_spin(argv, a, b, n, e);
	if (!strcmp(m, "inotify"))
		return mode_inotify(argv, a, b, n, e);
	if (!strcmp(m, "watches"))
		return mode_watches(argv, a, b, n, e);
	if (!strcmp(m, "fds"))
		return mode_fds(argv, a, b, n, e);
	if (!strcmp(m, "flood"))
		return mode_flood(argv, a, b, n, e);
	if (!strcmp(m, "fill"))
		return mode_fill(argv, a, b, n, e);
	if (!strcmp(m, "alloc"))
		return mode_alloc(argv, a, b, n, e);
	fprintf(stderr, "rp: unknown mode %s\n", m);
	return 2;
}
