/* opts.c - sr-exec's command line. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "sr.h"

static const char usage_text[] =
	"usage: sr-exec [options] prog [args...]\n"
	"Set no_new_privs, apply Landlock and a seccomp filter, then exec prog.\n"
	"\n"
	"  -p, --profile P     default (the default), strict, or an OCI/Docker seccomp JSON file\n"
	"      --net           default profile: also allow AF_INET, AF_INET6, netlink route\n"
	"      --allow NAME    allow syscall NAME (repeatable)\n"
	"      --deny NAME[:E] refuse syscall NAME with errno E (default EPERM)\n"
	"      --log           log what would be refused instead of refusing it\n"
	"      --print         print the compiled filter (pfc) and exit\n"
	"      --save-bpf FILE write the compiled filter as raw BPF and exit\n"
	"      --bpf FILE      load a raw BPF filter instead of compiling one\n"
	"      --landlock=M    auto (default), off or require\n"
	"      --ro PATH       Landlock: read-only access beneath PATH (repeatable)\n"
	"      --rx PATH       Landlock: read and execute beneath PATH\n"
	"      --rw PATH       Landlock: read, write, create, remove beneath PATH\n"
	"      --report-fd N   say \"exec\" on fd N before the exec, close it for prog\n"
	"  -v, --verbose       say what was enforced, on stderr\n"
	"  -h, --help          show this help\n"
	"  -V, --version       show the version\n";

enum { O_NET = 256, O_ALLOW, O_DENY, O_LOG, O_PRINT, O_SAVE, O_BPF, O_LANDLOCK, O_RO, O_RX, O_RW,
       O_REPORT_FD };

static const struct option longopts[] = {
	{"profile", required_argument, NULL, 'p'},
	{"net", no_argument, NULL, O_NET},
	{"allow", required_argument, NULL, O_ALLOW},
	{"deny", required_argument, NULL, O_DENY},
	{"log", no_argument, NULL, O_LOG},
	{"print", no_argument, NULL, O_PRINT},
	{"save-bpf", required_argument, NULL, O_SAVE},
	{"bpf", required_argument, NULL, O_BPF},
	{"landlock", required_argument, NULL, O_LANDLOCK},
	{"ro", required_argument, NULL, O_RO},
	{"rx", required_argument, NULL, O_RX},
	{"rw", required_argument, NULL, O_RW},
	{"report-fd", required_argument, NULL, O_REPORT_FD},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

static void *grow(void *v, size_t n, size_t size)
{
	void *nv = realloc(v, (n + 1) * size);
	if (!nv)
		sr_fatal_sys(SR_EXIT_SYS, "unable to allocate memory");
	return nv;
}

static void add_adjust(struct sx_opts *o, const char *opt, char *arg, int allow)
{
	int err = 0;
	char *colon = strchr(arg, ':');
	if (colon && allow)
		sr_usage_value(opt, "syscall name", arg, "a name without :ERRNO");
	if (colon) {
		*colon = '\0';
		err = sx_errno_parse(colon + 1);
		if (err < 0)
			sr_usage_value(opt, "errno", colon + 1, "a name like EPERM or 1-4095");
	} else if (!allow) {
		err = EPERM;
	}
	if (sx_syscall_nr(arg) == __NR_SCMP_ERROR)
		sr_usage_value(opt, "syscall", arg, "a syscall name of this architecture");
	o->adj = grow(o->adj, o->nadj, sizeof *o->adj);
	o->adj[o->nadj++] = (struct sx_adjust){arg, allow, err};
}

static void add_path(struct sx_opts *o, const char *opt, const char *path,
		     enum sx_path_kind k)
{
	if (!*path)
		sr_usage_value(opt, "path", path, "a path that is not empty");
	o->paths = grow(o->paths, o->npaths, sizeof *o->paths);
	o->paths[o->npaths++] = (struct sx_path){path, k};
}

static enum sx_landlock_mode landlock_mode(const char *s)
{
	if (strcmp(s, "auto") == 0)
		return SX_LL_AUTO;
	if (strcmp(s, "off") == 0)
		return SX_LL_OFF;
	if (strcmp(s, "require") == 0)
		return SX_LL_REQUIRE;
	sr_usage_value("--landlock", "mode", s, "auto, off or require");
}

static int report_fd(const char *arg)
{
	int fd = (int)sr_opt_count("--report-fd", arg, 1 << 30);
	if (fcntl(fd, F_GETFD) < 0)
		sr_usage_value("--report-fd", "fd", arg, "an open file descriptor");
	return fd;
}

/* Combinations that would silently do less than asked. */
static void check(const struct sx_opts *o, int profile_given)
{
	if (o->bpf && (profile_given || o->net || o->nadj || o->log || o->print || o->save_bpf))
		sr_usage("--bpf loads a finished filter: it takes no --profile, --net, --allow, "
			 "--deny, --log, --print or --save-bpf");
	if (o->net && strcmp(o->profile, "default") != 0)
		sr_usage("--net applies to the default profile only");
	if (o->save_bpf && strcmp(o->profile, "strict") == 0)
		sr_usage("--save-bpf: the strict filter is bound to one run and cannot be saved");
	if (o->landlock == SX_LL_OFF && o->npaths)
		sr_usage("--ro/--rx/--rw need Landlock, but --landlock=off");
	if (!o->argv[0] && !o->print && !o->save_bpf)
		sr_usage_noprog();
}

void sx_parse_opts(int argc, char **argv, struct sx_opts *o)
{
	int c, profile_given = 0;
	memset(o, 0, sizeof *o);
	o->profile = "default";
	o->report_fd = -1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:vhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': o->profile = optarg; profile_given = 1; break;
		case O_NET: o->net = 1; break;
		case O_ALLOW: add_adjust(o, "--allow", optarg, 1); break;
		case O_DENY: add_adjust(o, "--deny", optarg, 0); break;
		case O_LOG: o->log = 1; break;
		case O_PRINT: o->print = 1; break;
		case O_SAVE: o->save_bpf = optarg; break;
		case O_BPF: o->bpf = optarg; break;
		case O_LANDLOCK: o->landlock = landlock_mode(optarg); break;
		case O_RO: add_path(o, "--ro", optarg, SX_RO); break;
		case O_RX: add_path(o, "--rx", optarg, SX_RX); break;
		case O_RW: add_path(o, "--rw", optarg, SX_RW); break;
		case O_REPORT_FD: o->report_fd = report_fd(optarg); break;
		case 'v': o->verbose = 1; break;
		case 'h': fputs(usage_text, stdout); exit(SR_EXIT_OK);
		case 'V': sr_version();
		default: sr_usage_option(argc, argv, c);
		}
	}
	if (!*o->profile)
		sr_usage_value("--profile", "name", o->profile, "a profile name or file");
	o->argv = argv + optind;
	check(o, profile_given);
}
