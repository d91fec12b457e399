/* tty.c: the probe of tests/escape/06-jail-tty-vsock-keys.t (also run through run_code by
   tests/escape/90-run-code.t). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>
#include <linux/keyctl.h>
static void say(const char *what, long r) { printf("%s %s\n", what, r < 0 ? strerrorname_np(errno) : "ok"); }
int main(int argc, char **argv)
{
	const char *m = argv[1];
	char c = 88, sub = 6; /* X */
	if (!strcmp(m, "sti")) {
		setsid();
		ioctl(0, TIOCSCTTY, 0);
		say("sti", ioctl(0, TIOCSTI, &c));
		say("sti-high", syscall(SYS_ioctl, 0, (1UL << 32) | TIOCSTI, &c));
	} else if (!strcmp(m, "linux")) {
		say("linux", ioctl(0, TIOCLINUX, &sub));
	} else if (!strcmp(m, "raw")) {
		struct termios t;
		tcgetattr(0, &t);
		cfmakeraw(&t);
		say("raw", tcsetattr(0, TCSANOW, &t));
	} else if (!strcmp(m, "vsock")) {
		say("vsock", socket(AF_VSOCK, SOCK_STREAM, 0));
	} else if (!strcmp(m, "keys")) {
		say("keys", syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0));
	}
	return 0;
}
