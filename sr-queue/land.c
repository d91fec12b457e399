/* land.c - `land SPOOL ID`: the last words of a --via launcher, run on the
 * node it chose. It finds the job's directory there (shared storage), runs
 * the job as a keeper does (keeper.c), and records how it ended in the
 * job's directory for the keeper on the worker's machine (via.c). It
 * exits 0 once that is recorded: the launcher's exit status is not the
 * job's. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "spool.h"
#include "usage.h"
#include "worker.h"
#include "sr.h"

static const struct option land_lo[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void land_opt(void *ctx, int c, const char *arg)
{
	(void)ctx;
	(void)arg;
	if (c == 'h') {
		sq_print_usage();
		exit(0);
	}
}

int sq_cmd_land(int argc, char **argv)
{
	char *ops[2], host[256] = "?", dir[PATH_MAX + 64], why[SQ_WHY_MAX];
	struct sq_report rep;
	if (sq_parse_args(argc, argv, "h", land_lo, land_opt, NULL, ops, 2, 0, NULL) != 2)
		sr_usage("land: want SPOOL ID");
	sq_need_id(ops[1]);
	sr_cloexec_from(3, NULL, 0); /* nothing the launcher left open reaches the job */
	(void)gethostname(host, sizeof host - 1);
	snprintf(dir, sizeof dir, "%s/run/%s", ops[0], ops[1]);
	/* The spool's run/ by its path (which may pass through links, as
	 * the worker's does), then the job's directory as the worker opens it. */
	char runpath[PATH_MAX];
	snprintf(runpath, sizeof runpath, "%s/run", ops[0]);
	int rfd = open(runpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd = rfd < 0 ? -1 : sq_open_private_dir(rfd, ops[1], why, sizeof why);
	int e = errno;
	if (rfd >= 0)
		close(rfd);
	errno = e;
	if (fd == SQ_REFUSED)
		sr_fatal(SR_EXIT_SYS, "refusing job %s: %s", dir, why);
	if (fd < 0)
		sr_fatal(SR_EXIT_SYS, "node %s cannot see the job's directory %s: %s; with "
			 "--via the spool must be on storage every node sees, at the same path",
			 host, dir, strerror(errno));
	if (sq_job_file_check(fd, why, sizeof why) == SQ_REFUSED) /* as a claim does */
		sr_fatal(SR_EXIT_SYS, "refusing job %s: %s", dir, why);
	memset(&rep, 0, sizeof rep);
	if (sq_land_record(dir, &rep, host, 0) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to write %s/%s on node %s", dir,
			     SQ_LANDED_FILE, host);
	sq_land_job(fd, ops[1], &rep);
	if (sq_land_record(dir, &rep, host, 1) < 0) {
		sr_warn_sys("unable to write %s/%s on node %s", dir, SQ_LANDED_FILE, host);
		return SR_EXIT_SYS;
	}
	return 0;
}
