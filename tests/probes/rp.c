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
int main(int argc, char **argv)
{
	const char *m = argv[1];
	long a = argc > 2 ? atol(argv[2]) : 0, b = argc > 3 ? atol(argv[3]) : 0;
	long n = 0;
	int e = 0;
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(m, "bomb")) {        /* fork up to A children that each sleep B ms */
		for (; n < a; n++) {
			pid_t p = fork();
			if (p == 0) { usleep((useconds_t)b * 1000); _exit(0); }
			if (p < 0) { e = errno; break; }
		}
		printf("forked %ld %s\n", n, err(e));
		usleep((useconds_t)b * 1000);
		return 0;
	}
	if (!strcmp(m, "threads")) {     /* start up to A idle threads */
		pthread_attr_t at;
		pthread_attr_init(&at);
		pthread_attr_setstacksize(&at, 65536);
		for (pthread_t t; n < a; n++)
			if ((e = pthread_create(&t, &at, idle, NULL)) != 0)
				break;
		printf("threads %ld %s\n", n, err(e));
		return 0;
	}
	if (!strcmp(m, "spin")) {        /* burn A ms of CPU time */
		while (cpu_s() * 1000 < a)
			;
		printf("done\n");
		return 0;
	}
	if (!strcmp(m, "inotify")) {     /* make up to A inotify instances, held B ms */
		for (; n < a; n++)
			if (inotify_init1(IN_CLOEXEC) < 0) { e = errno; break; }
		printf("inotify %ld %s\n", n, err(e));
		usleep((useconds_t)b * 1000);
		return 0;
	}
	if (!strcmp(m, "watches")) {     /* watch up to A new files in directory argv[3] */
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
	if (!strcmp(m, "fds")) {         /* open up to A descriptors */
		for (; n < a; n++)
			if (open("/dev/null", O_RDONLY) < 0) { e = errno; break; }
		printf("opened %ld %s\n", n, err(e));
		return 0;
	}
	if (!strcmp(m, "flood")) {       /* write A bytes to stdout, or forever if 0 */
		static char buf[65536];
		memset(buf, 'x', sizeof buf);
		for (long left = a; a == 0 || left > 0; left -= sizeof buf)
			if (write(1, buf, a && left < (long)sizeof buf ? (size_t)left : sizeof buf) < 0) {
				fprintf(stderr, "flood: %s\n", err(errno));
				return 1;
			}
		return 0;
	}
	if (!strcmp(m, "fill")) {        /* write up to B MiB into file A */
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
	if (!strcmp(m, "alloc")) {       /* allocate and touch A MiB */
		char *p = malloc((size_t)a << 20);
		if (!p) { printf("alloc %s\n", err(errno)); return 1; }
		memset(p, 1, (size_t)a << 20);
		printf("alloc ok\n");
		return 0;
	}
	fprintf(stderr, "rp: unknown mode %s\n", m);
	return 2;
}
