/* sr-limit - run a program under resource limits and a wall clock, and
 * report how it ended as one line of JSON. */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sr.h"
#include "sr-limit.h"

static const char usage_text[] =
"usage: sr-limit [options] prog [args...]\n"
"  -m, --mem SIZE         the run's memory, shared included (cgroup memory.max;\n"
"                         needs a delegated cgroup)\n"
"  -d, --data SIZE        each process's private memory (RLIMIT_DATA; shared\n"
"                         memory is not counted)\n"
"      --as SIZE          address-space limit (RLIMIT_AS; breaks some runtimes)\n"
"  -c, --cpu DURATION     CPU time limit (RLIMIT_CPU, whole seconds)\n"
"  -p, --pids N           at most N processes/threads more than at start\n"
"  -n, --nofile N         open files (RLIMIT_NOFILE)\n"
"  -f, --fsize SIZE       largest file written (RLIMIT_FSIZE)\n"
"  -s, --stack SIZE       stack size (RLIMIT_STACK)\n"
"      --core SIZE        core dump size (default 0: no core dumps)\n"
"      --cpus N           CPU bandwidth, e.g. 0.5 (cgroup cpu.max; needs a cgroup)\n"
"  -t, --timeout DURATION wall clock; then SIGTERM, then SIGKILL\n"
"  -k, --kill-after DURATION  grace period before SIGKILL (default 2s)\n"
"      --cgroup MODE      auto (default), off or require\n"
"      --best-effort      run even where --pids, --mem or --cpus cannot hold,\n"
"                         saying so in the report (not_enforced)\n"
"      --stats FILE       write the JSON report to FILE\n"
"      --stats-fd N       write the JSON report to fd N\n"
"  -v, --verbose          say what is enforced, on stderr\n"
"  -h, --help             show this help\n"
"  -V, --version          show the version\n";

enum { O_AS = 256, O_CORE, O_CPUS, O_CGROUP, O_BEST_EFFORT, O_STATS, O_STATS_FD };

static const struct option longopts[] = {
	{ "mem", required_argument, 0, 'm' },
	{ "data", required_argument, 0, 'd' },
	{ "as", required_argument, 0, O_AS },
	{ "cpu", required_argument, 0, 'c' },
	{ "pids", required_argument, 0, 'p' },
	{ "nproc", required_argument, 0, 'p' },
	{ "nofile", required_argument, 0, 'n' },
	{ "fsize", required_argument, 0, 'f' },
	{ "stack", required_argument, 0, 's' },
	{ "core", required_argument, 0, O_CORE },
	{ "cpus", required_argument, 0, O_CPUS },
	{ "timeout", required_argument, 0, 't' },
	{ "kill-after", required_argument, 0, 'k' },
	{ "cgroup", required_argument, 0, O_CGROUP },
	{ "best-effort", no_argument, 0, O_BEST_EFFORT },
	{ "stats", required_argument, 0, O_STATS },
	{ "stats-fd", required_argument, 0, O_STATS_FD },
	{ "verbose", no_argument, 0, 'v' },
	{ "help", no_argument, 0, 'h' },
	{ "version", no_argument, 0, 'V' },
	{ 0, 0, 0, 0 },
};

static void set_rl(struct rl *r, uint64_t v)
{
	r->set = 1;
	r->value = v;
}

/* The rule for 0 (see sr-limit(1), "A limit of 0"): 0 is never "no limit".
 * A limit no program can start under at 0 (memory, address space, stack,
 * CPU time, open files, the wall clock, CPU bandwidth) refuses it; one a
 * program can live without (--pids, --fsize, --core) takes 0 as it is. */
#define OVER0 "more than 0; for no limit, leave the option out"

static uint64_t over0(const char *opt, const char *what, const char *s, uint64_t v)
{
	if (v == 0)
		sr_usage_value(opt, what, s, OVER0);
	return v;
}
#define SIZE_OVER0(opt) over0(opt, "size", optarg, sr_opt_size(opt, optarg))
#define DURATION_OVER0(opt) over0(opt, "duration", optarg, sr_opt_duration_ns(opt, optarg))

/* --cpus 0.5 -> 500 thousandths; 1 to 1024 CPUs. */
static uint64_t parse_cpus(const char *s)
{
	uint64_t ns;
	/* A duration parser read as seconds gives exact decimal handling. */
	if (sr_parse_duration_ns(s, &ns) < 0 || strpbrk(s, "hmnsu") ||
	    ns < 1000000ULL || ns > 1024000000000ULL)
		sr_usage_value("--cpus", "CPU count", s, "0.001 to 1024");
	return ns / 1000000ULL;
}

static int stats_fd_from_env(void)
{
	const char *s = getenv("SR_STATS_FD");
	uint64_t fd;
	if (!s)
		return -1;
	if (sr_parse_count(s, 1 << 20, &fd) < 0 || fcntl((int)fd, F_GETFD) < 0) {
		sr_warn("ignoring SR_STATS_FD=%s: not an open file descriptor", s);
		return -1;
	}
	return (int)fd;
}

static void parse_mode(struct opts *o, const char *s)
{
	if (strcmp(s, "auto") == 0)
		o->cgroup = CG_AUTO;
	else if (strcmp(s, "off") == 0)
		o->cgroup = CG_OFF;
	else if (strcmp(s, "require") == 0)
		o->cgroup = CG_REQUIRE;
	else
		sr_usage_value("--cgroup", "mode", s, "auto, off or require");
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	int c;
	memset(o, 0, sizeof *o);
	o->stats_fd = -1;
	o->kill_after_ns = 2000000000ULL;
	set_rl(&o->core, 0);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:m:d:c:p:n:f:s:t:k:vhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'm': set_rl(&o->mem, SIZE_OVER0("--mem")); break;
		case 'd': set_rl(&o->data, SIZE_OVER0("--data")); break;
		case O_AS: set_rl(&o->as, SIZE_OVER0("--as")); break;
		case 'c': set_rl(&o->cpu_ns, DURATION_OVER0("--cpu")); break;
		case 'p': set_rl(&o->pids, sr_opt_count("--pids", optarg, 1 << 22)); break;
		case 'n': set_rl(&o->nofile, over0("--nofile", "count", optarg,
						    sr_opt_count("--nofile", optarg, 1 << 30))); break;
		case 'f': set_rl(&o->fsize, sr_opt_size("--fsize", optarg)); break;
		case 's': set_rl(&o->stack, SIZE_OVER0("--stack")); break;
		case O_CORE: set_rl(&o->core, sr_opt_size("--core", optarg)); break;
		case O_CPUS: set_rl(&o->cpus_milli, parse_cpus(optarg)); break;
		case 't': o->timeout_ns = DURATION_OVER0("--timeout"); break;
		case 'k': o->kill_after_ns = sr_opt_duration_ns("--kill-after", optarg); break;
		case O_CGROUP: parse_mode(o, optarg); break;
		case O_BEST_EFFORT: o->best_effort = 1; break;
		case O_STATS: o->stats_path = optarg; break;
		case O_STATS_FD:
			o->stats_fd = (int)sr_opt_count("--stats-fd", optarg, 1 << 20);
			if (fcntl(o->stats_fd, F_GETFD) < 0)
				sr_usage_value("--stats-fd", "fd", optarg, "an open file descriptor");
			break;
		case 'v': o->verbose = 1; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': sr_version();
		default: sr_usage_option(argc, argv, c);
		}
	}
	if (optind >= argc)
		sr_usage_noprog();
	if (o->timeout_ns == 0 && o->kill_after_ns == 0)
		o->kill_after_ns = 1;
	o->argv = argv + optind;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct enforced e;
	struct outcome out;

	sr_set_prog("sr-limit");
	parse_args(argc, argv, &o);
	stats_check(&o);
	if (!o.stats_path && o.stats_fd < 0)
		o.stats_fd = stats_fd_from_env();
	unsetenv("SR_STATS_FD");
	if (o.stats_fd >= 0 && fcntl(o.stats_fd, F_SETFD, FD_CLOEXEC) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to set close-on-exec on fd %d", o.stats_fd);

	memset(&e, 0, sizeof e);
	e.cgroup_lock = -1;
	memset(&out, 0, sizeof out);
	if (cg_setup(&o, &e) < 0 || rl_prepare(&o, &e) < 0)
		return SR_EXIT_SYS;
	supervise(&o, &e, &out);
	cg_collect(&e, &out);
	cg_remove(&e);
	stats_report(&o, &e, &out);
	return outcome_exit_code(&o, &out);
}
