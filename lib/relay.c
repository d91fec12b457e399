/* relay.c - bytes both ways between two connected sockets until both
 * sides have ended: sr-net's proxy (counting them) and sr-jail's
 * --net-proxy forwarder. The end of one direction (EOF) is passed on as
 * a shutdown of the other side's writing, so half-closed protocols work. */
#include <errno.h>
#include <poll.h>
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
