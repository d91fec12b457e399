/* opts.c - the command line, in the spirit of bubblewrap's. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jail.h"
#include "opts.h"
#include "sr.h"

static const char usage_text[] =
	"usage: sr-jail [options] prog [args...]\n"
	"Run prog in new user, mount, pid, net, ipc, uts and cgroup namespaces\n"
	"with a minimal read-only view of the host. Options:\n"
	"  --bind SRC DST       bind host path SRC at DST, writable\n"
	"  --quota SIZE         cap the directory of the --bind before at SIZE\n"
	"  --quota-inodes N     and at N inodes (files, directories, links)\n"
	"  --quota-cache FILE   keep that directory's size in FILE, to measure it once\n"
	"  --quota-changes FILE what applying --quota changed is listed in FILE\n"
	"  --control PATH       a socket at PATH: each connection applies the changes\n"
	"                       of --quota so far, the jail paused, and is answered\n"
	"  --view-from SOCKET   while another jail serves SOCKET (its --control) over\n"
	"                       the same directory: it applies first, and --quota's\n"
	"                       changes are applied through its view, then by it\n"
	"  --ro-bind SRC DST    bind host path SRC at DST, read-only\n"
	"  --rootfs DIR         /usr, /bin, /lib*, /sbin and /etc basics from the root\n"
	"                       file system in DIR (read-only) instead of the host's\n"
	"  --rootfs-layer DIR   the files of DIR over --rootfs's (read-only), as an\n"
	"                       upper layer of overlayfs keeps them\n"
	"  --tmpfs DST[:SIZE]   a fresh tmpfs at DST (default size 64M)\n"
	"  --chdir DIR          working directory inside (default " JAIL_HOME ")\n"
	"  --hostname NAME      hostname inside (default " JAIL_HOSTNAME ")\n"
	"  --setenv KEY VALUE   set KEY in the program's environment\n"
	"  --unsetenv KEY       remove KEY from the program's environment\n"
	"  --env-file FILE      set each KEY=VALUE of FILE (NUL-separated)\n"
	"  --keep-env KEY       pass the caller's KEY through, if set\n"
	"  --keep-fd N          let fd N survive into the jail\n"
	"  --report-fd N        the jail's PID 1 says on fd N what it saw (a quota\n"
	"                       reached); the program does not get fd N\n"
	"  --share-net          keep the host's network (no network isolation)\n"
	"  --net-proxy SOCKET   the jail's one way out: the proxy listening on the\n"
	"                       host's Unix SOCKET (sr-net), reached at\n"
	"                       127.0.0.1:3128 inside; HTTP_PROXY and the like set\n"
	"  --publish PORT:PATH  the way in: each connection to the Unix socket made\n"
	"                       at PATH is carried to the jail's 127.0.0.1:PORT\n"
	"  --allow-userns       let the program create nested user namespaces\n"
	"  --uid N, --gid N     ids inside (default: the caller's)\n"
	"  -v, --verbose        say what is being set up\n"
	"  -h, --help           show this help\n"
	"  -V, --version        show the version\n";

enum {
	O_BIND = 256, O_RO_BIND, O_TMPFS, O_CHDIR, O_HOSTNAME, O_SETENV, O_ENV_FILE,
	O_UNSETENV, O_KEEP_ENV, O_KEEP_FD, O_SHARE_NET, O_ALLOW_USERNS,
	O_UID, O_GID, O_QUOTA, O_QUOTA_CACHE, O_QUOTA_INODES, O_ROOTFS, O_ROOTFS_LAYER,
	O_CONTROL, O_REPORT_FD, O_QUOTA_CHANGES, O_NET_PROXY, O_PUBLISH, O_VIEW_FROM,
};

static const struct option longopts[] = {
	{"bind", required_argument, 0, O_BIND},
	{"ro-bind", required_argument, 0, O_RO_BIND},
	{"quota", required_argument, 0, O_QUOTA},
	{"quota-cache", required_argument, 0, O_QUOTA_CACHE},
	{"quota-changes", required_argument, 0, O_QUOTA_CHANGES},
	{"quota-inodes", required_argument, 0, O_QUOTA_INODES},
	{"control", required_argument, 0, O_CONTROL},
	{"net-proxy", required_argument, 0, O_NET_PROXY},
	{"publish", required_argument, 0, O_PUBLISH},
	{"view-from", required_argument, 0, O_VIEW_FROM},
	{"tmpfs", required_argument, 0, O_TMPFS},
	{"rootfs", required_argument, 0, O_ROOTFS},
	{"rootfs-layer", required_argument, 0, O_ROOTFS_LAYER},
	{"chdir", required_argument, 0, O_CHDIR},
	{"hostname", required_argument, 0, O_HOSTNAME},
	{"setenv", required_argument, 0, O_SETENV},
	{"unsetenv", required_argument, 0, O_UNSETENV},
	{"env-file", required_argument, 0, O_ENV_FILE},
	{"keep-env", required_argument, 0, O_KEEP_ENV},
	{"keep-fd", required_argument, 0, O_KEEP_FD},
	{"report-fd", required_argument, 0, O_REPORT_FD},
	{"share-net", no_argument, 0, O_SHARE_NET},
	{"allow-userns", no_argument, 0, O_ALLOW_USERNS},
	{"uid", required_argument, 0, O_UID},
	{"gid", required_argument, 0, O_GID},
	{"verbose", no_argument, 0, 'v'},
	{"help", no_argument, 0, 'h'},
	{"version", no_argument, 0, 'V'},
	{0, 0, 0, 0},
};

/* The second argument of a two-argument option (--bind SRC DST). */
static const char *second(int argc, char **argv, const char *opt)
{
	if (optind >= argc)
		sr_usage("%s: needs two arguments", opt);
	return argv[optind++];
}

static void check_dst(const char *opt, const char *dst)
{
	if (dst[0] != '/' || dst[1] == '\0')
		sr_usage_value(opt, "destination", dst, "an absolute path other than /");
}

static void check_key(const char *opt, const char *key)
{
	if (!*key || strchr(key, '='))
		sr_usage_value(opt, "variable name", key, "a name, not empty, without =");
}

static void add_mount(struct jail *j, enum mkind kind, const char *src,
		      const char *dst, uint64_t size)
{
	struct mreq *m = &j->mounts[j->nmounts++];
	m->kind = kind;
	m->src = src;
	m->dst = dst;
	m->size = size;
}

/* --tmpfs DST[:SIZE]; a DST naming a default tmpfs resizes it. */
static void opt_tmpfs(struct jail *j, char *arg)
{
	uint64_t size = JAIL_TMPFS_SIZE;
	char *colon = strrchr(arg, ':');
	if (colon) {
		*colon = '\0';
		size = sr_opt_size("--tmpfs", colon + 1);
		if (size == 0)
			sr_usage_value("--tmpfs", "size", colon + 1, "more than 0");
	}
	check_dst("--tmpfs", arg);
	if (strcmp(arg, "/tmp") == 0)
		j->tmp_size = size;
	else if (strcmp(arg, JAIL_HOME) == 0)
		j->home_size = size;
	else if (strcmp(arg, "/dev/shm") == 0)
		j->shm_size = size;
	else
		add_mount(j, MK_TMPFS, NULL, arg, size);
}

/* --quota SIZE: the --bind just before it becomes a size-capped overlay. */
static void opt_quota(struct jail *j, const char *arg)
{
	struct mreq *m = j->nmounts ? &j->mounts[j->nmounts - 1] : NULL;
	if (!m || m->kind != MK_BIND || m->size)
		sr_usage("--quota: must follow a --bind SRC DST (and only once)");
	m->size = sr_opt_size("--quota", arg);
	if (m->size == 0)
		sr_usage_value("--quota", "size", arg, "more than 0");
}

/* --quota-inodes N: and the same directory at N inodes. */
static void opt_quota_inodes(struct jail *j, const char *arg)
{
	struct mreq *m = j->nmounts ? &j->mounts[j->nmounts - 1] : NULL;
	if (!m || m->kind != MK_BIND || !m->size || m->inodes)
		sr_usage("--quota-inodes: must follow a --bind SRC DST --quota SIZE (and only once)");
	m->inodes = sr_opt_count("--quota-inodes", arg, 1ULL << 40);
	if (m->inodes == 0)
		sr_usage_value("--quota-inodes", "count", arg, "more than 0");
}

static void add_env(struct jail *j, enum ekind kind, const char *opt,
		    const char *key, const char *val)
{
	check_key(opt, key);
	struct envop *e = &j->envops[j->nenvops++];
	e->kind = kind;
	e->key = key;
	e->val = val;
}

/* --env-file FILE: KEY=VALUE entries separated by NUL bytes (a value may
 * hold anything else, newlines included), each as --setenv. */
static void opt_env_file(struct jail *j, const char *path, int argc)
{
	size_t len;
	char *buf = sr_read_file(path, 1 << 20, &len);
	if (!buf)
		sr_fatal_sys(errno == EFBIG ? SR_EXIT_USAGE : SR_EXIT_SYS,
			     "unable to read --env-file %s", path);
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\0';
	j->envops = realloc(j->envops, (j->nenvops + n + 1 + (size_t)argc) * sizeof *j->envops);
	if (!j->envops)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	for (char *p = buf, *next; p < buf + len; p = next) {
		next = p + strlen(p) + 1;
		char *eq = strchr(p, '=');
		if (!eq)
			sr_usage("--env-file %s: '%.64s' is not KEY=VALUE", path, p);
		*eq = '\0';
		add_env(j, EK_SET, "--env-file", p, eq + 1);
	}
}

static int open_fd(const char *opt, const char *arg)
{
	int fd = (int)sr_opt_count(opt, arg, 1 << 30);
	if (fcntl(fd, F_GETFD) < 0)
		sr_usage_value(opt, "fd", arg, "an open file descriptor");
	return fd;
}

static void opt_keep_fd(struct jail *j, const char *arg)
{
	j->keep[j->nkeep++] = open_fd("--keep-fd", arg);
}

static void opt_hostname(struct jail *j, const char *arg)
{
	size_t n = strlen(arg);
	if (n == 0 || n > 64)
		sr_usage_value("--hostname", "name", arg, "1 to 64 characters");
	j->hostname = arg;
}

static void opt_chdir(struct jail *j, const char *arg)
{
	if (arg[0] != '/')
		sr_usage_value("--chdir", "directory", arg, "an absolute path");
	j->chdir = arg;
}

/* --rootfs DIR and --rootfs-layer DIR, once each: an absolute path,
 * checked when the jail opens it. */
static void opt_rootfs(const char **to, const char *opt, const char *arg)
{
	if (*to)
		sr_usage("%s: given twice", opt);
	if (arg[0] != '/' || arg[1] == '\0')
		sr_usage_value(opt, "directory", arg, "an absolute path other than /");
	*to = arg;
}

/* --net-proxy SOCKET, once: bound into the jail where forward.c's
 * process reaches it, and the variables programs read for a proxy set
 * (before the caller's --setenv, which may change them). The proxy
 * takes HTTP and SOCKS5 on the one port. */
static void opt_net_proxy(struct jail *j, const char *arg, int argc)
{
	static const char *const vars[][2] = {
		{ "http_proxy", "http://127.0.0.1:3128" }, { "HTTP_PROXY", "http://127.0.0.1:3128" },
		{ "https_proxy", "http://127.0.0.1:3128" }, { "HTTPS_PROXY", "http://127.0.0.1:3128" },
		{ "all_proxy", "http://127.0.0.1:3128" }, { "ALL_PROXY", "http://127.0.0.1:3128" },
		{ "no_proxy", "localhost,127.0.0.1,::1" }, { "NO_PROXY", "localhost,127.0.0.1,::1" },
	};
	size_t nv = sizeof vars / sizeof vars[0];
	if (j->net_proxy)
		sr_usage("--net-proxy: given twice");
	if (arg[0] != '/')
		sr_usage_value("--net-proxy", "socket", arg, "an absolute path");
	j->net_proxy = arg;
	add_mount(j, MK_BIND, arg, JAIL_NET_SOCKET, 0);
	j->envops = realloc(j->envops, (j->nenvops + nv + 1 + (size_t)argc) * sizeof *j->envops);
	if (!j->envops)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	for (size_t i = 0; i < nv; i++)
		add_env(j, EK_SET, "--net-proxy", vars[i][0], vars[i][1]);
}

/* --publish PORT:PATH, once: a port of the jail's loopback reached from
 * the host through a Unix socket made at PATH. */
static void opt_publish(struct jail *j, const char *arg)
{
	const char *colon = strchr(arg, ':');
	char port[8];
	uint64_t p = 0;
	if (j->publish)
		sr_usage("--publish: given twice");
	if (!colon || colon == arg || (size_t)(colon - arg) >= sizeof port || !colon[1])
		sr_usage_value("--publish", "port and path", arg, "PORT:PATH");
	memcpy(port, arg, (size_t)(colon - arg));
	port[colon - arg] = 0;
	if (sr_parse_count(port, 65535, &p) < 0 || p == 0)
		sr_usage_value("--publish", "port", port, "1 to 65535");
	j->publish = colon + 1;
	j->publish_port = (unsigned)p;
}

static void one_option(struct jail *j, int c, int argc, char **argv)
{
	const char *a = optarg;
	switch (c) {
	case O_BIND:
	case O_RO_BIND: {
		const char *opt = c == O_BIND ? "--bind" : "--ro-bind";
		const char *dst = second(argc, argv, opt);
		check_dst(opt, dst);
		add_mount(j, c == O_BIND ? MK_BIND : MK_RO_BIND, a, dst, 0);
		break;
	}
	case O_TMPFS: opt_tmpfs(j, optarg); break;
	case O_QUOTA: opt_quota(j, a); break;
	case O_QUOTA_CACHE: j->quota_cache = a; break;
	case O_QUOTA_CHANGES: j->quota_changes = a; break;
	case O_QUOTA_INODES: opt_quota_inodes(j, a); break;
	case O_CONTROL: j->control = a; break;
	case O_VIEW_FROM: j->view_from = a; break;
	case O_CHDIR: opt_chdir(j, a); break;
	case O_ROOTFS: opt_rootfs(&j->rootfs, "--rootfs", a); break;
	case O_ROOTFS_LAYER: opt_rootfs(&j->rootfs_layer, "--rootfs-layer", a); break;
	case O_HOSTNAME: opt_hostname(j, a); break;
	case O_SETENV:
		add_env(j, EK_SET, "--setenv", a, second(argc, argv, "--setenv"));
		break;
	case O_UNSETENV: add_env(j, EK_UNSET, "--unsetenv", a, NULL); break;
	case O_ENV_FILE: opt_env_file(j, a, argc); break;
	case O_KEEP_ENV: add_env(j, EK_KEEP, "--keep-env", a, NULL); break;
	case O_KEEP_FD: opt_keep_fd(j, a); break;
	case O_REPORT_FD: j->report_fd = open_fd("--report-fd", a); break;
	case O_SHARE_NET: j->share_net = 1; break;
	case O_NET_PROXY: opt_net_proxy(j, a, argc); break;
	case O_PUBLISH: opt_publish(j, a); break;
	case O_ALLOW_USERNS: j->allow_userns = 1; break;
	case O_UID:
		j->uid = (uid_t)sr_opt_count("--uid", a, 4294967294ULL);
		j->uid_set = 1;
		break;
	case O_GID:
		j->gid = (gid_t)sr_opt_count("--gid", a, 4294967294ULL);
		j->gid_set = 1;
		break;
	case 'v': j->verbose = 1; break;
	case 'h':
		fputs(usage_text, stdout);
		exit(fflush(stdout) == 0 ? SR_EXIT_OK : SR_EXIT_SYS);
	case 'V': sr_version();
	default: sr_usage_option(argc, argv, c);
	}
}

void jail_parse(struct jail *j, int argc, char **argv)
{
	size_t max = (size_t)argc + 1;
	memset(j, 0, sizeof *j);
	j->mounts = calloc(max, sizeof *j->mounts);
	j->envops = calloc(max, sizeof *j->envops);
	j->keep = calloc(max, sizeof *j->keep);
	j->quotas = calloc(max, sizeof *j->quotas);
	if (!j->mounts || !j->envops || !j->keep || !j->quotas)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	j->tmp_size = j->home_size = j->shm_size = JAIL_TMPFS_SIZE;
	j->prog_fd = j->sync_fd = j->control_fd = j->control_dir = j->report_fd = -1;
	j->publish_fd = j->publish_dir = j->net_fd[0] = j->net_fd[1] = -1;
	j->changes_fd = -1;
	j->view_dir = -1;

	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "+:hvV", longopts, NULL)) != -1)
		one_option(j, c, argc, argv);
	if (optind >= argc)
		sr_usage_noprog();
	j->argv = argv + optind;
	int quota = 0;
	for (size_t i = 0; i < j->nmounts; i++)
		quota |= j->mounts[i].kind == MK_BIND && j->mounts[i].size;
	if (j->quota_cache && !quota)
		sr_usage("--quota-cache: there is no --quota to keep the size for");
	if (j->quota_changes && !quota)
		sr_usage("--quota-changes: there is no --quota whose changes to list");
	if (j->control && !quota)
		sr_usage("--control: there is no --quota to apply");
	if (j->publish && j->share_net)
		sr_usage("--publish and --share-net: the program's ports are the host's already");
	if (j->net_proxy && j->share_net)
		sr_usage("--net-proxy and --share-net: the proxy is the way out of a jail "
			 "with a network of its own");
	if (j->rootfs_layer && !j->rootfs)
		sr_usage("--rootfs-layer: there is no --rootfs to lay it over");
	if (j->view_from && !quota)
		sr_usage("--view-from: there is no --quota to apply through its view");
}
