/* sr-jail - run a program in fresh namespaces with a minimal, read-only
 * view of the host, as an ordinary user. See sr-jail(1).
 *
 * The outer sr-jail stays in the host's PID namespace: it unshares the
 * namespaces, maps the caller's ids, forks PID 1 of the jail and waits
 * for it, forwarding signals. PID 1 (init.c) builds the new root, drops
 * every capability, starts the program and reaps until it exits. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jail.h"
#include "caps.h"
#include "control.h"
#include "env.h"
#include "init.h"
#include "ns.h"
#include "opts.h"
#include "prog.h"
#include "sock.h"
#include "sr.h"


int main(int argc, char **argv)
{
	struct jail j;

	sr_set_prog(argv[0]);
	jail_parse(&j, argc, argv);
	jail_identity(&j);
	jail_die_with_parent();
	jail_build_env(&j);
	jail_block_signals(&j);
	if (j.view_from)
		jail_view_open(&j);
	if (j.control)
		jail_control_listen(&j);
	if (j.publish)
		j.publish_fd = jail_unix_listen("--publish", j.publish, 0, &j.publish_dir,
						&j.publish_name);
	jail_unshare(&j);
	jail_resolve_prog(&j); /* in the new mount namespace: see plan_root */
	jail_write_maps(&j);
	jail_limit_userns(&j);
	jail_limit_ucounts();
	j.umask = umask(0);

	jail_save_tty(&j);
	/* One byte to PID 1 when the jail may start; the program's wait
	 * status back when it ends. */
	int pfd[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pfd) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to create a socket pair");
	pid_t pid = fork();
	if (pid < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to fork the jail's init");
	if (pid == 0) {
		close(pfd[1]);
		j.sync_fd = pfd[0];
		jail_init(&j);
	}
	/* While PID 1 builds the root: the hostname and lo, then let it go.
	 * If PID 1 has failed already, the write fails (EPIPE) and the wait
	 * reports how PID 1 ended. */
	close(pfd[0]);
	if (j.control_fd >= 0)
		close(j.control_fd);    /* PID 1's alone: refused once it is gone */
	if (j.publish_fd >= 0)
		close(j.publish_fd);    /* the forwarder's alone, likewise */
	jail_hostname(&j);
	jail_loopback(&j);
	signal(SIGPIPE, SIG_IGN);
	if (write(pfd[1], "", 1) < 0 && errno != EPIPE)
		sr_fatal_sys(SR_EXIT_SYS, "unable to start the jail");
	jail_drop_effective_caps(); /* it holds no capability it could use */
	int status = jail_wait(pid, 0, 0, NULL), prog;
	jail_restore_tty(&j);
	jail_control_remove(&j);
	jail_unix_remove(j.publish_dir, j.publish_name);
	if (read(pfd[1], &prog, sizeof prog) == (ssize_t)sizeof prog && WIFSIGNALED(prog))
		sr_die_like(prog);
	_exit(sr_status_to_exit(status));
}
