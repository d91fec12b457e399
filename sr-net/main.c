/* sr-net - run a program with a filtering proxy beside it: the proxy
 * listens on a Unix socket (sr-jail --net-proxy binds it into a jail
 * whose network has no other way out) and lets each connection reach
 * only the hosts and ports allowed, at addresses that are not the
 * host's own or private, recording every decision; then exec the
 * program, as its child: sr-net stays, the proxy, and ends as the
 * program does (its exit code, or its signal). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "ca.h"
#include "secret.h"
#include "sr-net.h"
#include "sr.h"

static const char usage_text[] =
"usage: sr-net --socket PATH [options] prog [args...]\n"
"       sr-net --check [options]\n"
"  -s, --socket PATH          the proxy's Unix socket, made at PATH (mode 0600)\n"
"  -a, --allow HOST[:PORTS]   let connections reach HOST (NAME, *.NAME below\n"
"                             NAME, * any, or an address) on PORTS (a comma\n"
"                             list; default 80,443); repeatable\n"
"  -d, --deny HOST[:PORTS]    refuse HOST (every port unless given); a deny\n"
"                             wins over any allow; repeatable\n"
"      --allow-file FILE      rules from FILE, one a line ('-' first: a deny)\n"
"      --allow-address NET    let connections reach NET (ADDRESS[/BITS]) though\n"
"                             it is private, loopback or the host's own\n"
"      --resolve NAME=ADDR    resolve NAME to ADDR instead of asking DNS\n"
"      --log FILE             one JSON line a connection, appended to FILE\n"
"      --log-fd N             the same, on fd N\n"
"      --max-connections N    connections served at once (default 64)\n"
"      --max-bytes SIZE       bytes each way, all connections together\n"
"                             (default 1G; 0: no bound)\n"
"      --connect-timeout DURATION  to reach a server (default 10s)\n"
"      --secret NAME=HOST:HEADER  give the program NAME, a placeholder that\n"
"                             becomes the secret's value in HEADER of its\n"
"                             HTTPS requests to HOST (TLS ended here)\n"
"      --secret-file NAME=FILE  the value of NAME: FILE's first line (mode\n"
"                             600); else sr-net's $SR_SECRET_NAME\n"
"      --ca-file FILE         trust FILE's CAs (not the host's) for HOST\n"
"      --ca-bundle FILE       write the host's CAs and the run's CA to FILE\n"
"                             and name it in SSL_CERT_FILE and the like\n"
"      --ca-bundle-as PATH    name PATH instead (where a jail sees FILE)\n"
"      --check                judge every option, rule and secret, then exit 0\n"
"                             (or 100 on a usage error): nothing made, no log\n"
"                             opened, no program run\n"
"  -v, --verbose              say each decision on stderr\n"
"  -h, --help                 show this help\n"
"  -V, --version              show the version\n";

enum { O_ALLOW_FILE = 256, O_ALLOW_ADDRESS, O_RESOLVE, O_LOG, O_LOG_FD, O_MAX_CONNS,
       O_MAX_BYTES, O_CONNECT_TIMEOUT, O_SECRET, O_SECRET_FILE, O_CA_FILE, O_CA_BUNDLE,
       O_CA_BUNDLE_AS, O_CHECK };

static const struct option longopts[] = {
	{ "socket", required_argument, 0, 's' },
	{ "allow", required_argument, 0, 'a' },
	{ "deny", required_argument, 0, 'd' },
	{ "allow-file", required_argument, 0, O_ALLOW_FILE },
	{ "allow-address", required_argument, 0, O_ALLOW_ADDRESS },
	{ "resolve", required_argument, 0, O_RESOLVE },
	{ "log", required_argument, 0, O_LOG },
	{ "log-fd", required_argument, 0, O_LOG_FD },
	{ "max-connections", required_argument, 0, O_MAX_CONNS },
	{ "max-bytes", required_argument, 0, O_MAX_BYTES },
	{ "connect-timeout", required_argument, 0, O_CONNECT_TIMEOUT },
	{ "secret", required_argument, 0, O_SECRET },
	{ "secret-file", required_argument, 0, O_SECRET_FILE },
	{ "ca-file", required_argument, 0, O_CA_FILE },
	{ "ca-bundle", required_argument, 0, O_CA_BUNDLE },
	{ "ca-bundle-as", required_argument, 0, O_CA_BUNDLE_AS },
	{ "check", no_argument, 0, O_CHECK },
	{ "verbose", no_argument, 0, 'v' },
	{ "help", no_argument, 0, 'h' },
	{ "version", no_argument, 0, 'V' },
	{ 0, 0, 0, 0 }
};

static void secret_option(struct net *n, int c, const char *a);

/* --check, and --log's file: opened once every option is judged (a
 * check opens none). */
static int check;
static const char *log_path;

static void option(struct net *n, int c, const char *a)
{
	switch (c) {
	case 's': n->socket_path = a; break;
	case 'a': rule_add(n, a, 0); break;
	case 'd': rule_add(n, a, 1); break;
	case O_ALLOW_FILE: rule_file(n, a); break;
	case O_ALLOW_ADDRESS: cidr_add(n, a); break;
	case O_RESOLVE: pin_add(n, a); break;
	case O_LOG: log_path = a; break;
	case O_CHECK: check = 1; break;
	case O_LOG_FD:
		n->log_fd = (int)sr_opt_count("--log-fd", a, 1 << 20);
		if (fcntl(n->log_fd, F_GETFD) < 0)
			sr_usage_value("--log-fd", "descriptor", a, "an open fd");
		break;
	case O_MAX_CONNS:
		n->max_conns = (unsigned)sr_opt_count("--max-connections", a, 1 << 16);
		if (!n->max_conns)
			sr_usage_value("--max-connections", "count", a, "more than 0");
		break;
	case O_MAX_BYTES: n->max_bytes = sr_opt_size("--max-bytes", a); break;
	case O_CONNECT_TIMEOUT:
		n->connect_timeout_ms = sr_opt_duration_ns("--connect-timeout", a) / 1000000;
		if (!n->connect_timeout_ms)
			sr_usage_value("--connect-timeout", "duration", a, "at least 1ms");
		break;
	case 'v': n->verbose = 1; break;
	default: secret_option(n, c, a); break;
	}
}

/* The command line, as given: what sr-net-tls is run with. */
static char **args;

/* Linked without its TLS half (ca.h), sr-net runs sr-net-tls, the same
 * program with it, from the directory it was run from (the build tree's
 * sr-net/ or the installed bin/), with the same command line: nothing
 * has been made yet but for the options judged so far. */
static void tls_half(void)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 16);
	if (len <= 0)
		sr_fatal_sys(SR_EXIT_SYS, "--secret: unable to find this program (/proc/self/exe)");
	exe[len] = '\0';
	strcpy(strrchr(exe, '/') + 1, "sr-net-tls");
	execv(exe, args);
	sr_fatal_sys(SR_EXIT_SYS, "--secret needs %s (sr-net with TLS, built and installed "
		     "beside sr-net)", exe);
}

/* --secret and the options that go with it (secret.c). */
static void secret_option(struct net *n, int c, const char *a)
{
	if ((c == O_SECRET || c == O_SECRET_FILE) && !ca_make)
		tls_half();
	switch (c) {
	case O_SECRET: secret_add(n, a); break;
	case O_SECRET_FILE: secret_file(n, a); break;
	}
	if (c == O_SECRET || c == O_SECRET_FILE)
		return;
	if (!n->secrets)
		sr_usage("--ca-file, --ca-bundle and --ca-bundle-as go after a --secret");
	if (c == O_CA_FILE)
		n->secrets->ca_file = a;
	else if (c == O_CA_BUNDLE)
		n->secrets->bundle = a;
	else if (c == O_CA_BUNDLE_AS)
		n->secrets->bundle_as = a;
}

/* A socket at path that nobody listens on: a run's whose proxy was
 * killed before it could remove it (1). */
static int stale(const struct sockaddr_un *sa)
{
	struct stat st;
	if (lstat(sa->sun_path, &st) < 0 || !S_ISSOCK(st.st_mode))
		return 0;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int gone = fd >= 0 && connect(fd, (const struct sockaddr *)sa, sizeof *sa) < 0 &&
		   errno == ECONNREFUSED;
	if (fd >= 0)
		close(fd);
	return gone;
}

/* Started by root, the proxy's socket is for the jail's forwarder, which
 * runs as the identity sr-jail drops root to (uid and gid 65534, its
 * JAIL_NOBODY): the socket is made theirs, still mode 0600, so that root's
 * jail can connect and no other user can (a program of the host running
 * as nobody could, where it can reach the directory). */
#define NET_JAIL_ID 65534

static void give_to_jail(int dfd, const char *base, const char *path)
{
	if (geteuid() != 0)
		return;
	if (fchownat(dfd, base, NET_JAIL_ID, NET_JAIL_ID, AT_SYMLINK_NOFOLLOW) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "cannot give the socket %s to uid %d (the jail's, "
			     "as root)", path, NET_JAIL_ID);
}

/* The listening socket at path, made fresh, mode 0600: an existing file
 * is not replaced (it may be another run's), but for a stale socket. */
static int listen_at(struct net *n, const char *path)
{
	/* bound as /proc/self/fd/DIR/NAME: a path of any length (sun_path
	 * holds 108 bytes) */
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	int dfd = dir ? open(*dir ? dir : "/", O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	if (dfd < 0)
		sr_fatal_sys(SR_EXIT_SYS, "cannot open the directory of the socket %s", path);
	if (!*base || snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/%s", dfd,
			       base) >= (int)sizeof sa.sun_path)
		sr_usage_value("--socket", "path", path, "a name of at most 80 bytes in its directory");
	free(dir);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		sr_fatal_sys(SR_EXIT_SYS, "socket");
	if (stale(&sa))
		(void)unlinkat(dfd, base, 0);
	mode_t old = umask(0177);
	int r = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	umask(old);
	struct stat st;
	if (r < 0)
		sr_fatal_sys(SR_EXIT_SYS, "cannot make the socket %s", path);
	give_to_jail(dfd, base, path);
	if (listen(fd, 128) < 0 || fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "listen on %s", path);
	close(dfd);
	n->socket_dev = st.st_dev;
	n->socket_ino = st.st_ino;
	return fd;
}

/* The program: a child that shares sr-net's memory until it execs
 * (vfork: no page tables copied; sr-net waits meanwhile), with the
 * caller's signal mask, and that dies with sr-net (its way out). sr-net
 * goes on as the proxy, its parent: when the program ends, nothing of
 * the proxy is left for sr-net's caller to hunt for. */
static pid_t start_program(char **argv, const sigset_t *old)
{
	char **sh_argv = sr_sh_argv(argv);
	pid_t parent = getpid();
	pid_t pid = vfork();
	if (pid < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to start %s", argv[0]);
	if (pid == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(SR_EXIT_SYS);
		sigprocmask(SIG_SETMASK, old, NULL);
		sr_execvp(argv, sh_argv);
		sr_fatal_run(argv[0]);
	}
	free(sh_argv);
	return pid;
}

int main(int argc, char *argv[])
{
	sr_set_prog("sr-net");
	args = argv;
	struct net n = { .log_fd = -1, .max_conns = 64, .max_bytes = 1ULL << 30,
			 .connect_timeout_ms = 10000 };
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:s:a:d:vhV", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return 0;
		}
		if (c == 'V')
			sr_version();
		if (c == '?' || c == ':')
			sr_usage_option(argc, argv, c);
		option(&n, c, optarg);
	}
	if (check) {    /* the values too, neither placeholder nor CA made */
		if (optind < argc)
			sr_usage("--check runs no program ('%s')", argv[optind]);
		secret_check(&n);
		return 0;
	}
	if (optind >= argc)
		sr_usage_noprog();
	if (!n.socket_path)
		sr_usage("--socket PATH is needed (where the proxy listens; see sr-net --help)");
	if (log_path) {
		n.log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (n.log_fd < 0)
			sr_fatal_sys(SR_EXIT_SYS, "cannot open %s", log_path);
	}
	secret_setup(&n);
	int lfd = listen_at(&n, n.socket_path);
	secret_env(&n);
	if (n.log_fd >= 0)
		fcntl(n.log_fd, F_SETFD, FD_CLOEXEC);
	setenv("SR_NET_SOCKET", n.socket_path, 1);
	sigset_t set, old;
	proxy_sigset(&set);
	sigprocmask(SIG_BLOCK, &set, &old);
	pid_t prog = start_program(argv + optind, &old);
	secret_env_undo();
	proxy_run(&n, lfd, prog);
}
