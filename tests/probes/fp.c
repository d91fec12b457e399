/* fp.c: the probe of tests/escape/10-files.t (also run through run_code by
   tests/escape/90-run-code.t). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/mount.h>

static int fail(void) { printf("%s\n", strerrorname_np(errno)); return 1; }
static int step(const char *what, long r)
{
	if (r < 0) { printf("%s=%s\n", what, strerrorname_np(errno)); return 1; }
	printf("%s=ok\n", what);
	return 0;
}
static int show(int fd)
{
	char b[256];
	ssize_t n = pread(fd, b, sizeof b - 1, 0);
	if (n < 0)
		return fail();
	b[n] = 0;
	b[strcspn(b, "\n")] = 0;
	printf("ok %s\n", b);
	return 0;
}
static int mode_mknod(char **argv, const char *a)
{
	mode_t t = argv[3][0] == 'c' ? S_IFCHR : argv[3][0] == 'b' ? S_IFBLK : S_IFIFO;
	return step("mknod", mknod(a, t | 0666, makedev(atoi(argv[4]), atoi(argv[5]))));
}

/* handle: encode a handle for A, then open it */
static int mode_handle(char **argv, const char *a)
{
	int fd;
	struct { struct file_handle fh; unsigned char b[128]; } h;
	int mid, bad;
	memset(&h, 0, sizeof h);
	h.fh.handle_bytes = sizeof h.b;
	bad = step("name_to_handle_at", syscall(SYS_name_to_handle_at, AT_FDCWD, a, &h.fh, &mid, 0));
	fd = open(a, O_RDONLY | O_DIRECTORY);
	bad |= step("open_by_handle_at", syscall(SYS_open_by_handle_at, fd, &h.fh, O_RDONLY | O_DIRECTORY));
	return bad;
}

/* gethandle: print TYPE:HEX of the handle of A */
static int mode_gethandle(char **argv, const char *a)
{
	struct { struct file_handle fh; unsigned char b[128]; } h;
	int mid;
	h.fh.handle_bytes = sizeof h.b;
	if (syscall(SYS_name_to_handle_at, AT_FDCWD, a, &h.fh, &mid, 0) < 0)
		return fail();
	printf("%d:", h.fh.handle_type);
	for (unsigned i = 0; i < h.fh.handle_bytes; i++)
		printf("%02x", h.fh.f_handle[i]);
	printf("\n");
	return 0;
}

/* usehandle: open TYPE:HEX (argv[3]) on the mount of A */
static int mode_usehandle(char **argv, const char *a)
{
	int fd;
	struct { struct file_handle fh; unsigned char b[128]; } h;
	const char *x = strchr(argv[3], ':') + 1;
	h.fh.handle_type = atoi(argv[3]);
	h.fh.handle_bytes = strlen(x) / 2;
	for (unsigned i = 0; i < h.fh.handle_bytes; i++)
		sscanf(x + 2 * i, "%2hhx", &h.fh.f_handle[i]);
	int mfd = open(a, O_RDONLY | O_DIRECTORY);
	fd = syscall(SYS_open_by_handle_at, mfd, &h.fh, O_RDONLY);
	return fd < 0 ? fail() : show(fd);
}

static int mode_remount(char **argv, const char *a)
{
	struct mount_attr at = { .attr_clr = MOUNT_ATTR_RDONLY };
	int bad = step("remount", mount(NULL, a, NULL, MS_REMOUNT | MS_BIND, NULL));
	bad |= step("mount_setattr", syscall(SYS_mount_setattr, AT_FDCWD, a, 0, &at, sizeof at));
	return bad;
}

int main(int argc, char **argv)
{
	const char *m = argv[1], *a = argc > 2 ? argv[2] : "";
	int fd;
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(m, "read"))
		return (fd = open(a, O_RDONLY)) < 0 ? fail() : show(fd);
	if (!strcmp(m, "readfd"))
		return show(atoi(a));
	if (!strcmp(m, "openat"))
		return (fd = openat(atoi(a), argv[3], O_RDONLY)) < 0 ? fail() : show(fd);
	if (!strcmp(m, "write") || !strcmp(m, "writefd")) {
		fd = m[5] ? atoi(a) : open(a, O_WRONLY);
		if (fd < 0 || write(fd, argv[3], strlen(argv[3])) < 0)
			return fail();
		printf("ok\n");
		return 0;
	}
	if (!strcmp(m, "mknod"))
		return mode_mknod(argv, a);
	if (!strcmp(m, "handle"))
		return mode_handle(argv, a);
	if (!strcmp(m, "gethandle"))
		return mode_gethandle(argv, a);
	if (!strcmp(m, "usehandle"))
		return mode_usehandle(argv, a);
	if (!strcmp(m, "remount"))
		return mode_remount(argv, a);
	fprintf(stderr, "fp: unknown mode %s\n", m);
	return 2;
}
