/* driver.c - run a fuzz target once over each file named, without
 * libFuzzer: the regression run of make check (tests/12-fuzz-regress.t).
 * A directory is read entry by entry. Exit 0 when every input went
 * through; a crash is the target's own abort or sanitizer report. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "sr.h"

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

/* Not sr_read_file: fuzz_oci wraps it (-Wl,--wrap) to feed its input. */
static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	if (!f) {
		perror(path);
		return -1;
	}
	do {
		if (cap - len < 65536 && !(buf = realloc(buf, cap += 65536)))
			abort();
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
	free(buf);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path, unsigned *n)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		++*n;
		return run_file(path);
	}
	DIR *d = opendir(path);
	if (!d) {
		perror(path);
		return -1;
	}
	char **names = NULL;
	size_t nn = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		names = realloc(names, (nn + 1) * sizeof *names);
		if (!names || asprintf(&names[nn], "%s/%s", path, e->d_name) < 0)
			abort();
		nn++;
	}
	closedir(d);
	qsort(names, nn, sizeof *names, cmp);   /* the same order every time */
	int r = 0;
	for (size_t i = 0; i < nn; i++) {
		if (run_path(names[i], n) < 0)
			r = -1;
		free(names[i]);
	}
	free(names);
	return r;
}

int main(int argc, char **argv)
{
	unsigned n = 0;
	int r = 0;
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++)
		if (run_path(argv[i], &n) < 0)
			r = 1;
	fprintf(stderr, "%s: %u inputs\n", argv[0], n);
	return r;
}
