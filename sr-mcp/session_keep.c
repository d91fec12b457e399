/* session_keep.c - the keeper of a session's interpreter, and the
 * interpreter's process tree as the host sees it.
 *
 * The interpreter's job (in the sessions' spool) is not the runner but
 * sr-mcp --session-keep DIR IDLE_MS -- RUNNER..., on the host, outside the
 * jail: it starts the runner (sr-limit, sr-jail, sr-exec, the interpreter)
 * as its child and supervises it from outside, whatever the code inside
 * does to the interpreter's own idle exit:
 *   - no call has held DIR/call.lock for IDLE_MS (the calls and sr-mcp
 *     touch DIR/used): it writes DIR/ended and ends the whole tree
 *     (SIGTERM to sr-limit, which ends the jail; SIGKILL to every process
 *     of the tree 3 s later);
 *   - the tree's CPU time (user and system, living and reaped processes)
 *     goes to DIR/cpu-JOB every 2 s and at the end, for the calls to
 *     charge to the tenant's --cpu-budget (session_call.c);
 *   - DIR/tree-JOB names the runner's pid and start time, for the calls'
 *     look at the tree.
 * It is a subreaper, so a process of the tree that loses its parent stays
 * below it. Its exit code is the runner's. Not being sr-mcp's child, it
 * lives on if sr-mcp dies: an orphaned session still idles out. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "session.h"
#include "sr.h"

#define KEEP_TICK_MS 500
#define KEEP_KILL_MS 3000

/* One process's line of /proc/PID/stat: 0, or -1. */
static int proc_read(int procfd, const char *name, struct session_proc *p)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "%s/stat", name);
	if (sr_read_small_at(procfd, path, buf, sizeof buf) <= 0)
		return -1;
	char *r = strrchr(buf, ')');
	unsigned long long ut, st, cut, cst, start;
	int ppid;
	long threads;
	char state;
	/* fields 3 on: state ppid pgrp session tty tpgid flags minflt cminflt
	 * majflt cmajflt utime stime cutime cstime prio nice threads itreal start */
	if (!r || sscanf(r + 2, "%c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu "
			 "%*d %*d %ld %*d %llu", &state, &ppid, &ut, &st, &cut, &cst, &threads, &start) != 8)
		return -1;
	long hz = sysconf(_SC_CLK_TCK);
	p->pid = atoi(name);
	p->ppid = ppid;
	p->start = start;
	p->threads = (int)threads;
	p->zombie = state == 'Z' || state == 'X';
	p->user_ns = (ut + cut) * (1000000000ULL / (unsigned long long)(hz > 0 ? hz : 100));
	p->sys_ns = (st + cst) * (1000000000ULL / (unsigned long long)(hz > 0 ? hz : 100));
	return 0;
}

/* Add p to the tree t if its parent is in it (or it is the root). */
static int tree_take(struct session_tree *t, const struct session_proc *p)
{
	int in = p->pid == t->root && p->start == t->root_start;
	for (size_t i = 0; !in && i < t->n; i++)
		in = t->p[i].pid == p->ppid;
	if (!in)
		return 0;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->p = realloc(t->p, t->cap * sizeof *t->p);
		if (!t->p)
			sr_fatal(SR_EXIT_SYS, "out of memory");
	}
	t->p[t->n++] = *p;
	return 1;
}

int session_tree_read(struct session_tree *t)
{
	size_t n = 0, cap = 0;
	struct session_proc *all = NULL;
	DIR *d = opendir("/proc");
	struct dirent *de;
	t->n = 0;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		if (n == cap && !(all = realloc(all, (cap = cap ? cap * 2 : 512) * sizeof *all)))
			sr_fatal(SR_EXIT_SYS, "out of memory");
		if (proc_read(dirfd(d), de->d_name, &all[n]) == 0)
			n++;
	}
	if (d)
		closedir(d);
	/* the root first, then whoever's parent is taken, until none is added:
	 * a process reaped between two reads is missed once, never counted twice */
	for (int more = 1; more;) {
		more = 0;
		for (size_t i = 0; i < n; i++)
			if (all[i].pid && tree_take(t, &all[i])) {
				all[i].pid = 0;
				more = 1;
			}
	}
	free(all);
	return t->n && t->p[0].pid == t->root ? 0 : -1;
}

uint64_t session_tree_cpu(const struct session_tree *t, uint64_t *sys_ns)
{
	uint64_t u = 0, s = 0;
	for (size_t i = 0; i < t->n; i++) {
		u += t->p[i].user_ns;
		s += t->p[i].sys_ns;
	}
	if (sys_ns)
		*sys_ns = s;
	return u + s;
}

/* "N" into DIR/NAME, by a new file renamed over it. */
static void put_file(int dir, const char *name, const char *text)
{
	char tmp[128];
	snprintf(tmp, sizeof tmp, ".%s.tmp", name);
	(void)unlinkat(dir, tmp, 0);
	int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (sr_write_all(fd, text, strlen(text)) < 0 || renameat(dir, tmp, dir, name) < 0)
		(void)unlinkat(dir, tmp, 0);
	close(fd);
}

struct keep {
	int dir;
	const char *job;
	pid_t child;
	unsigned long long child_start;
	uint64_t idle_ms, started_ms, end_at, cpu_at, base_ns;
	int ending, status, gone;
};

static uint64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The CPU of the reaped part of the tree (the runner once it has ended). */
static uint64_t reaped_ns(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return 0;
	return (uint64_t)ru.ru_utime.tv_sec * 1000000000ULL + (uint64_t)ru.ru_utime.tv_usec * 1000 +
	       (uint64_t)ru.ru_stime.tv_sec * 1000000000ULL + (uint64_t)ru.ru_stime.tv_usec * 1000;
}

static void write_cpu(struct keep *k, int final)
{
	struct session_tree t = { .root = k->child, .root_start = k->child_start };
	uint64_t live = k->gone ? 0 : (session_tree_read(&t), session_tree_cpu(&t, NULL));
	free(t.p);
	uint64_t total = live + reaped_ns();
	if (total < k->base_ns)      /* a process reaped between two reads: never less */
		total = k->base_ns;
	k->base_ns = total;
	char name[64], text[64];
	snprintf(name, sizeof name, "cpu-%s", k->job);
	snprintf(text, sizeof text, "%llu %d\n", (unsigned long long)total, final);
	put_file(k->dir, name, text);
}

/* Idle: no call holds call.lock, and none has begun or ended (DIR/used)
 * for idle_ms. */
static int idle(const struct keep *k)
{
	struct stat st;
	uint64_t last = k->started_ms;
	if (fstatat(k->dir, "used", &st, AT_SYMLINK_NOFOLLOW) == 0) {
		uint64_t u = (uint64_t)st.st_mtim.tv_sec * 1000 + (uint64_t)st.st_mtim.tv_nsec / 1000000;
		last = u > last ? u : last;
	}
	if (wall_ms() < last + k->idle_ms)
		return 0;
	int lk = openat(k->dir, "call.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	int free_now = lk >= 0 && flock(lk, LOCK_EX | LOCK_NB) == 0;
	if (lk >= 0)
		close(lk);
	return free_now;
}

/* DIR/ended says why, if the session of record is still this one. */
static void say_ended(const struct keep *k, const char *why)
{
	int lk = openat(k->dir, "start.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lk >= 0)
		flock(lk, LOCK_EX);
	char rec[8192];
	int fd = openat(k->dir, "record.json", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, rec, sizeof rec - 1) : -1;
	if (fd >= 0)
		close(fd);
	rec[n > 0 ? n : 0] = '\0';
	if (strstr(rec, k->job))
		put_file(k->dir, "ended", why);
	if (lk >= 0)
		close(lk);
}

/* Every process of the tree: SIGKILL. */
static void kill_tree(const struct keep *k)
{
	struct session_tree t = { .root = k->child, .root_start = k->child_start };
	if (session_tree_read(&t) == 0)
		for (size_t i = 0; i < t.n; i++)
			(void)kill(t.p[i].pid, SIGKILL);
	free(t.p);
}

static void end_tree(struct keep *k, const char *why)
{
	if (k->ending)
		return;
	if (why)
		say_ended(k, why);
	k->ending = 1;
	k->end_at = sr_now_ns() / 1000000 + KEEP_KILL_MS;
	(void)kill(k->child, SIGTERM);
}

/* Children reaped; the runner's status kept. */
static void reap(struct keep *k)
{
	int st;
	pid_t p;
	while ((p = waitpid(-1, &st, WNOHANG)) > 0)
		if (p == k->child) {
			k->status = st;
			k->gone = 1;
		}
}

static void keep_loop(struct keep *k, const sigset_t *set)
{
	char why[300];
	snprintf(why, sizeof why, "it was idle longer than the server's --session-idle "
		 "(%llu s): its keeper ended it from outside the sandbox",
		 (unsigned long long)(k->idle_ms / 1000));
	while (!k->gone) {
		struct timespec ts = { 0, KEEP_TICK_MS * 1000000L };
		int sig = sigtimedwait(set, NULL, &ts);
		if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP)
			end_tree(k, NULL);
		reap(k);
		uint64_t now = sr_now_ns() / 1000000;
		if (k->gone)
			break;
		if (k->ending && now >= k->end_at)
			kill_tree(k);
		else if (!k->ending && k->idle_ms && idle(k))
			end_tree(k, why);
		if (now >= k->cpu_at) {
			write_cpu(k, 0);
			k->cpu_at = now + 2000;
		}
	}
	kill_tree(k);           /* what the runner left, if anything */
	reap(k);
}

static void keep_start(struct keep *k, char **argv)
{
	sigset_t none;
	sigemptyset(&none);
	k->child = fork();
	if (k->child < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to start the session's runner");
	if (k->child == 0) {
		sigprocmask(SIG_SETMASK, &none, NULL);
		sr_exec(argv);
	}
	char pid[32], text[80], name[64];
	snprintf(pid, sizeof pid, "/proc/%d", (int)k->child);
	long long start = 0;
	(void)sr_proc_stat_num(AT_FDCWD, pid, 22, &start);
	k->child_start = (unsigned long long)start;
	snprintf(text, sizeof text, "%d %llu\n", (int)k->child, k->child_start);
	snprintf(name, sizeof name, "tree-%s", k->job);
	put_file(k->dir, name, text);
}

int session_keep_main(int argc, char **argv)
{
	if (argc < 6 || strcmp(argv[4], "--"))
		sr_fatal(SR_EXIT_USAGE, "usage: sr-mcp " SESSION_KEEP_ARG
			 " DIR IDLE_MS -- RUNNER (sr-mcp runs it as a job)");
	struct keep k = { .job = getenv("SR_QUEUE_ID"), .started_ms = wall_ms() };
	k.idle_ms = strtoull(argv[3], NULL, 10);
	k.dir = open(argv[2], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (k.dir < 0 || !k.job || strlen(k.job) != 32 || strchr(k.job, '/'))
		sr_fatal_sys(SR_EXIT_SYS, "unable to open the session's directory %s", argv[2]);
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	keep_start(&k, argv + 5);
	keep_loop(&k, &set);
	write_cpu(&k, 1);
	char name[64];
	snprintf(name, sizeof name, "tree-%s", k.job);
	(void)unlinkat(k.dir, name, 0);
	return sr_status_to_exit(k.status);
}

/* ---- what the calls read: the tree of job's keeper, and its interpreter ---- */

int session_threads(int pid, struct session_proc *th, int max)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/task", pid);
	DIR *d = opendir(p);
	struct dirent *de;
	int n = 0;
	while (d && (de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9' && n < max &&
		    proc_read(dirfd(d), de->d_name, &th[n]) == 0)
			n++;
	if (d)
		closedir(d);
	return d ? n : -1;
}

int session_tree_load(int dir, const char *job, struct session_tree *t)
{
	char name[64], text[80];
	snprintf(name, sizeof name, "tree-%s", job);
	memset(t, 0, sizeof *t);
	if (sr_read_small_at(dir, name, text, sizeof text) <= 0 ||
	    sscanf(text, "%d %llu", &t->root, &t->root_start) != 2 || t->root <= 1)
		return -1;
	return session_tree_read(t);
}

int session_keep_stop(int dir, const char *job)
{
	struct session_tree t;
	if (session_tree_load(dir, job, &t) < 0)
		return -1;
	int keeper = t.p[0].ppid;
	free(t.p);
	/* the root's parent, if it is a keeper (were that gone, the root's
	 * parent is whichever subreaper took it) */
	char p[64], argv[4400];
	snprintf(p, sizeof p, "/proc/%d/cmdline", keeper);
	ssize_t n = keeper > 1 ? sr_read_small_at(AT_FDCWD, p, argv, sizeof argv) : -1;
	const char *a1 = n > 0 ? argv + strnlen(argv, (size_t)n) + 1 : NULL;
	if (!a1 || a1 >= argv + n || strcmp(a1, SESSION_KEEP_ARG))
		return -1;
	return kill(keeper, SIGTERM) == 0 ? 0 : -1;
}

/* Does process pid hold the file (dev, ino) open? */
static int holds(int pid, dev_t dev, ino_t ino)
{
	char p[64], f[340];
	snprintf(p, sizeof p, "/proc/%d/fd", pid);
	DIR *d = opendir(p);
	struct dirent *de;
	struct stat st;
	int found = 0;
	while (d && !found && (de = readdir(d))) {
		snprintf(f, sizeof f, "%s/%s", p, de->d_name);
		found = de->d_name[0] != '.' && stat(f, &st) == 0 && st.st_dev == dev &&
			st.st_ino == ino;
	}
	if (d)
		closedir(d);
	return found;
}

int session_interp(const struct session_tree *t, int dir)
{
	struct stat in;
	if (fstatat(dir, "in", &in, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	for (size_t i = 0; i < t->n; i++)      /* parents first: the topmost holder */
		if (holds(t->p[i].pid, in.st_dev, in.st_ino))
			return (int)i;
	return -1;
}

/* Is pid the init of a PID namespace below ours (the jail's): the last
 * of its NSpid ids 1? (/proc/PID/status: readable though it is not
 * dumpable.) */
static int ns_init(int pid)
{
	char p[64], buf[4096];
	snprintf(p, sizeof p, "/proc/%d/status", pid);
	if (sr_read_small_at(AT_FDCWD, p, buf, sizeof buf) <= 0)
		return 0;
	const char *h = strstr(buf, "\nNSpid:");
	if (!h)
		return 0;
	h += 7;
	size_t len = strcspn(h, "\n");
	int ids = 0;
	const char *last = h;
	for (const char *q = h; q < h + len; q++)
		if ((q == h || q[-1] == ' ' || q[-1] == '\t') && *q >= '0' && *q <= '9') {
			ids++;
			last = q;
		}
	return ids >= 2 && last[0] == '1' && (last + 1 >= h + len || last[1] < '0' || last[1] > '9');
}

/* The index of t->p[i]'s parent in t, or t->n. */
static size_t parent_of(const struct session_tree *t, size_t i)
{
	size_t j = 0;
	while (j < t->n && t->p[j].pid != t->p[i].ppid)
		j++;
	return j;
}

int session_chain_own(const struct session_tree *t, size_t i, const struct session_proc *interp,
		       int (*known)(const void *ctx, const struct session_proc *p), const void *ctx)
{
	/* up through what the baseline does not know, to what it does */
	size_t j = i, steps = 0;         /* (bounded: a snapshot of /proc is not atomic) */
	do {
		j = parent_of(t, j);
		if (j == t->n || ++steps > t->n ||
		    (t->p[j].pid == interp->pid && t->p[j].start == interp->start))
			return 0;
	} while (!known(ctx, &t->p[j]));
	/* the jail's init takes the code's orphans; below the interpreter
	 * is the code's */
	if (ns_init(t->p[j].pid))
		return 0;
	for (size_t k = j; k < t->n && steps++ <= 2 * t->n; k = parent_of(t, k))
		if (t->p[k].pid == interp->pid && t->p[k].start == interp->start)
			return 0;
	return 1;
}

uint64_t session_mem(int pid, const char *field)
{
	char p[64], buf[4096], key[32];
	snprintf(p, sizeof p, "/proc/%d/status", pid);
	snprintf(key, sizeof key, "\n%s:", field);
	if (sr_read_small_at(AT_FDCWD, p, buf, sizeof buf) <= 0)
		return 0;
	char *h = strstr(buf, key);
	unsigned long long kb;
	return h && sscanf(h + strlen(key), "%llu", &kb) == 1 ? kb * 1024 : 0;
}

uint64_t session_sigcgt(int pid)
{
	char p[64], buf[4096];
	snprintf(p, sizeof p, "/proc/%d/status", pid);
	if (sr_read_small_at(AT_FDCWD, p, buf, sizeof buf) <= 0)
		return 0;
	char *h = strstr(buf, "\nSigCgt:");
	unsigned long long m;
	return h && sscanf(h + 8, "%llx", &m) == 1 ? m : 0;
}

/* ---- what sr-mcp tells of a call: its report, and the interpreter's end -- */

static double jnum(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

/* The call's own report (session_call.c's, on its stats descriptor), from
 * its result line: the limit object, or NULL. */
static cJSON *call_report(const char *id)
{
	int fd = id && job_id_ok(id) ? job_file(id, "job.jsonl") : -1;
	if (fd < 0)
		return NULL;
	size_t got;
	char *t = job_read_at(fd, 0, 1 << 17, &got);
	close(fd);
	t[got] = '\0';
	char *nl = strchr(t, '\n');
	cJSON *r = nl ? cJSON_Parse(nl + 1) : NULL, *lim = cJSON_DetachItemFromObject(r, "limit");
	free(t);
	cJSON_Delete(r);
	return lim;
}

/* What the call's report says beyond the run's figures: the CPU charged
 * to the client's budget, processes killed, the session ended for what
 * the call left running (said in the hint too). */
void session_call_report(cJSON *res)
{
	cJSON *s = cJSON_GetObjectItem(res, "session");
	cJSON *rep = s ? call_report(cJSON_GetStringValue(cJSON_GetObjectItem(res, "job_id"))) : NULL;
	if (!rep)
		return;
	cJSON_AddNumberToObject(s, "cpu_charged_ms", jnum(rep, "charge_cpu_ms"));
	if (*jstr(rep, "net_job"))     /* the connections of the call (session_call.c) */
		job_net_range(res, jstr(rep, "net_job"), (uint64_t)jnum(rep, "net_from"),
			      (uint64_t)jnum(rep, "net_to"));
	if (jnum(rep, "session_killed") > 0)
		cJSON_AddNumberToObject(s, "processes_killed", jnum(rep, "session_killed"));
	const char *ended = jstr(rep, "session_ended");
	if (*ended) {
		char h[2400];
		const char *old = cJSON_GetStringValue(cJSON_GetObjectItem(res, "hint"));
		cJSON_AddStringToObject(s, "ended", ended);
		snprintf(h, sizeof h, "%s%sThe session was ended after this call: %s. The next "
			 "run_code with session: true starts a new one.", old ? old : "", old ? " " : "",
			 ended);
		cJSON_DeleteItemFromObject(res, "hint");
		cJSON_AddStringToObject(res, "hint", h);
	}
	cJSON_Delete(rep);
}

int session_heap_oom(const char *job)
{
	char p[4300], tail[4097];
	const char *sp = job_session_spool();
	if (!sp || !job_id_ok(job) || snprintf(p, sizeof p, "%s/done/%s/stderr", sp, job) < 0)
		return 0;
	int fd = open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	ssize_t n = pread(fd, tail, sizeof tail - 1, st.st_size > 4096 ? st.st_size - 4096 : 0);
	close(fd);
	tail[n > 0 ? n : 0] = '\0';
	for (char *l = tail; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, "FATAL ERROR: ", 13) && strstr(l, "JavaScript heap out of memory") &&
		    strstr(l, "JavaScript heap out of memory") < l + strcspn(l, "\n"))
			return 1;
	return 0;
}
