/* balloon.c: the probe of tests/escape/03-mem-shared.t (also run through run_code by
   tests/escape/90-run-code.t). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>
/* balloon tmpfs MIB FILE: write MIB MiB into FILE (on a tmpfs: memory). */
static int tmpfs(const char *file, size_t n)
{
	static char buf[1 << 20];
	FILE *f = fopen(file, "w");
	if (!f) { perror(file); return 2; }
	memset(buf, 1, sizeof buf);
	for (size_t i = 0; i < n; i += sizeof buf)
		if (fwrite(buf, sizeof buf, 1, f) != 1 || fflush(f) != 0) { perror("write"); return 3; }
	puts("held");
	return 0;
}
int main(int argc, char **argv)
{
	size_t n = (size_t)atol(argv[2]) << 20;
	if (!strcmp(argv[1], "tmpfs") && argc > 3)
		return tmpfs(argv[3], n);
	char *p = MAP_FAILED;
	if (!strcmp(argv[1], "private")) {
		p = mmap(0, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	} else if (!strcmp(argv[1], "shared")) {
		p = mmap(0, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	} else if (!strcmp(argv[1], "memfd")) {
		int fd = memfd_create("balloon", 0);
		if (fd < 0 || ftruncate(fd, (off_t)n) < 0) { perror("memfd"); return 2; }
		p = mmap(0, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	} else if (!strcmp(argv[1], "sysv")) {
		int id = shmget(IPC_PRIVATE, n, IPC_CREAT | 0600);
		if (id < 0) { perror("shmget"); return 2; }
		p = shmat(id, 0, 0);
		shmctl(id, IPC_RMID, 0);
		if (p == (void *)-1) p = MAP_FAILED;
	}
	if (p == MAP_FAILED) { perror("map"); return 2; }
	for (size_t i = 0; i < n; i += 4096) p[i] = 1;
	puts("held");
	return 0;
}
