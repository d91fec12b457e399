/* relay.c - what passes over a connected socket: bytes both ways until
 * both sides have ended (sr-net's proxy, counting them, and sr-jail's
 * --net-proxy forwarder; the end of one direction, EOF, is passed on as a
 * shutdown of the other side's writing, so half-closed protocols work),
 * and a request answered by one line and maybe a descriptor (sr-jail's
 * --control socket, asked by sr-jail --view-from and by sr-mcp). */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sr.h"

int sr_relay(int a, int b, int (*seen)(int way, size_t n, void *arg), void *arg)
{
	static char buf[65536];
	int open[2] = { 1, 1 }, fd[2] = { a, b };
	while (open[0] || open[1]) {
		struct pollfd p[2] = { { a, open[0] ? POLLIN : 0, 0 }, { b, open[1] ? POLLIN : 0, 0 } };
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (int i = 0; i < 2; i++) {
			if (!p[i].revents)
				continue;
			ssize_t r = read(fd[i], buf, sizeof buf);
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r < 0 || (r > 0 && sr_write_all(fd[!i], buf, (size_t)r) < 0))
				return -1;
			if (r == 0) {
				shutdown(fd[!i], SHUT_WR);
				open[i] = 0;
			} else if (seen && seen(i, (size_t)r, arg) < 0) {
				return 1;
			}
		}
	}
	return 0;
}

ssize_t sr_ask(int s, const char *req, char *line, size_t len, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { line, len - 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1,
			    .msg_control = fd ? cbuf : NULL, .msg_controllen = fd ? sizeof cbuf : 0 };
	ssize_t n = -1;
	if (sr_write_all(s, req, strlen(req)) == 0)
		while ((n = recvmsg(s, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
			;
	int e = errno;
	line[n > 0 ? n : 0] = '\0';
	line[strcspn(line, "\n")] = '\0';
	struct cmsghdr *h = fd && n > 0 ? CMSG_FIRSTHDR(&m) : NULL;
	if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
	    h->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(fd, CMSG_DATA(h), sizeof *fd);
	errno = e;
	return n;
}
