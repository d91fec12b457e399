/* proc.c - small files and the process tree, read through /proc. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sr.h"

ssize_t sr_read_small_at(int dfd, const char *name, char *buf, size_t size)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	int e = errno;
	close(fd);
	if (n < 0) {
		errno = e;
		return -1;
	}
	buf[n] = '\0';
	return n;
}

int sr_proc_stat_num(int procfd, const char *pid, int field, long long *out)
{
	char path[300], buf[1024];
	snprintf(path, sizeof path, "%s/stat", pid);
	if (field < 3 || sr_read_small_at(procfd, path, buf, sizeof buf) <= 0)
		return -1;
	/* The command name (field 2) may hold spaces and parentheses: the
	 * fields after it start after its last ')'. */
	char *p = strrchr(buf, ')');
	for (int f = 2; p && f < field; f++)
		p = strchr(p + 1, ' ');
	if (!p)
		return -1;
	char *end;
	long long v = strtoll(p + 1, &end, 10);
	if (end == p + 1)
		return -1;
	*out = v;
	return 0;
}

/* Is pid one of spare[]? */
static int spared(pid_t pid, const pid_t *spare, size_t nspare)
{
	for (size_t i = 0; i < nspare; i++)
		if (spare[i] == pid)
			return 1;
	return 0;
}

void sr_kill_descendants(const pid_t *spare, size_t nspare)
{
	size_t n = 0, cap = 0;
	pid_t *pid = NULL, *ppid = NULL;
	DIR *d = opendir("/proc");
	struct dirent *de;
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		long long pp;
		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    sr_proc_stat_num(dirfd(d), de->d_name, 4, &pp) < 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			pid_t *a = realloc(pid, cap * sizeof *pid);
			if (a)
				pid = a;
			pid_t *b = realloc(ppid, cap * sizeof *ppid);
			if (b)
				ppid = b;
			if (!a || !b)
				break;
		}
		pid[n] = (pid_t)atol(de->d_name);
		ppid[n] = (pid_t)pp;
		n++;
	}
	closedir(d);
	/* Mark descendants in passes; ppid[i] = -1 marks pid[i] as one (real
	 * parent pids are >= 0: 0 for init and kthreadd). */
	pid_t self = getpid();
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t i = 0; i < n; i++) {
			if (ppid[i] < 0 || spared(pid[i], spare, nspare))
				continue;
			int below = ppid[i] == self;
			for (size_t j = 0; !below && j < n; j++)
				below = ppid[j] == -1 && pid[j] == ppid[i];
			if (below) {
				(void)kill(pid[i], SIGKILL);
				ppid[i] = -1;
				changed = 1;
			}
		}
	}
	free(pid);
	free(ppid);
}
