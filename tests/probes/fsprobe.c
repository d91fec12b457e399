/* fsprobe - a static probe of a jail's file system (tests/38-jail-rootfs.t,
 * tests/38-jail-layer.t). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char **argv) {
	for (int i = 1; i + 1 < argc; i += 2) {
		const char *op = argv[i], *p = argv[i + 1];
		char buf[256] = "";
		int fd; ssize_t n; struct stat st;
		switch (op[0]) {
		case 114: /* r */
			fd = open(p, O_RDONLY);
			n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
			if (n < 0) { printf("r %s: %s\n", p, strerror(errno)); break; }
			buf[n] = 0; buf[strcspn(buf, "\n")] = 0;
			printf("r %s: ok %s\n", p, buf); break;
		case 119: /* w */
			fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			printf("w %s: %s\n", p, fd < 0 ? strerror(errno) : "ok"); break;
		case 108: /* l */
			n = readlink(p, buf, sizeof buf - 1);
			if (n >= 0) buf[n] = 0;
			printf("l %s: %s\n", p, n < 0 ? strerror(errno) : buf); break;
		default: /* s */
			printf("s %s: %s\n", p, lstat(p, &st) == 0 ? "yes" : strerror(errno));
		}
	}
	return 0;
}
