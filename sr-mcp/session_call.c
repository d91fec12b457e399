/* session_call.c - the program of a session call's job: sr-mcp
 * --session-call DIR JOB SPOOL TIMEOUT_MS NOTE, run by the sr-queue worker
 * on the host (its stdout and stderr are the call's, kept by sr-queue).
 * It waits its turn (DIR/call.lock), hands the code (SR_CODE) to the
 * interpreter over DIR/in with a new random call id, and copies the
 * frames of that id from DIR/out to its stdout and stderr until the done
 * frame. Frames are length-prefixed (session.h, srsession.py): what the
 * code prints cannot end the call or pass for another call's answer; a
 * frame of another id (a call before it that was given up) is skipped; a
 * malformed header ends the session. Exit: 0 ok, 1 an exception, 124
 * interrupted at the timeout, 125 the session was lost (it ended, or it
 * did not stop SESSION_GRACE_MS after the timeout and was killed). A
 * SIGTERM (cancel_job) ends the session: its code cannot be stopped
 * otherwise. Before and after the call it looks at the interpreter from
 * outside for work left running (below), and it reports the
 * interpreter's CPU on SR_STATS_FD as sr-limit reports a run's, with what
 * the client is charged for it (charge_cpu_ms). Last, the session's jail
 * applies the call's files to the workspace (session_quota.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job.h"
#include "mcp.h"
#include "session.h"
#include "sr.h"

#define SESSION_THREADS_MAX 256
#define SESSION_SYNC_WAIT_MS 60000      /* for the jail's apply (it copies the call's files) */

struct call {
	int dir, in, out;
	const char *job, *spool;
	char id[33];
	char buf[1 << 16];
	size_t have;
	struct session_tree base;       /* the interpreter's tree before any code ran */
	struct session_proc interp, th[SESSION_THREADS_MAX];   /* the interpreter, its threads */
	int nth, killed, reported, timers;
	uint64_t base_sig;              /* the signals it caught then */
	uint64_t cpu0, sys0, t0;
	long long net0;                 /* the size of the interpreter's proxy records then */
	char ended[700];                /* why this call ended the session, or "" */
};

static volatile sig_atomic_t stop;
static void report(struct call *c, int rc);

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t ms_now(void)
{
	return sr_now_ns() / 1000000;
}

static int interp_done(const struct call *c)
{
	char p[4300];
	struct stat st;
	snprintf(p, sizeof p, "%s/done/%s", c->spool, c->job);
	return lstat(p, &st) == 0;
}

/* End the interpreter (by its keeper, else its job cancelled) and say why
 * in DIR/ended. */
static void end_interp(struct call *c, const char *why)
{
	int fd = openat(c->dir, "ended", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		(void)sr_write_all(fd, why, strlen(why));
		close(fd);
	}
	char err[600];
	for (int i = 0; session_keep_stop(c->dir, c->job) == 0 && i < 100 && !interp_done(c); i++)
		usleep(50000);     /* its keeper ends it and counts its CPU to the end */
	if (!interp_done(c) && job_cancel_in(c->spool, c->job, err, sizeof err) < 0)
		fprintf(stderr, "sr-mcp: unable to stop the session's interpreter %s: %s\n", c->job,
			err);
}

/* Kill the interpreter, say why (in DIR/ended and on stderr), exit 125. */
static void lose(struct call *c, const char *why)
{
	end_interp(c, why);
	fprintf(stderr, "sr-mcp: the session was lost: %s\n", why);
	report(c, 125);
	exit(125);
}

/* DIR/used touched: the keeper's idle clock starts again. */
static void touch_used(const struct call *c)
{
	int fd = openat(c->dir, "used", O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		(void)futimens(fd, NULL);
		close(fd);
	}
}


/* The FIFOs opened once the interpreter is up (it opens `out`, then `in`). */
static void connect_fifos(struct call *c)
{
	uint64_t until = ms_now() + 120000;
	while ((c->in = openat(c->dir, "in", O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		if (errno != ENXIO || interp_done(c) || ms_now() > until || stop) {
			fprintf(stderr, "sr-mcp: the session's interpreter is not running: its state is lost\n");
			exit(125);
		}
		usleep(2000);
	}
	fcntl(c->in, F_SETFL, 0);
	c->out = openat(c->dir, "out", O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (c->out < 0 || fstat(c->out, &st) < 0 || !S_ISFIFO(st.st_mode))
		sr_fatal_sys(SR_EXIT_SYS, "unable to open the session's channel");
}

static void send_code(struct call *c, const char *code, size_t len, const char *timeout)
{
	char head[128];
	int n = snprintf(head, sizeof head, "SRQ1 %s %s %zu\n", c->id, timeout, len);
	signal(SIGPIPE, SIG_IGN);
	if (sr_write_all(c->in, head, (size_t)n) < 0 || sr_write_all(c->in, code, len) < 0)
		lose(c, "its channel broke while the code was sent");
}

/* More bytes from `out` until the deadline: 1, 0 at its end (the
 * interpreter is gone), -1 at the deadline or a SIGTERM. */
static int fill(struct call *c, uint64_t deadline)
{
	for (;;) {
		if (stop)
			return -1;
		uint64_t t = ms_now();
		if (t >= deadline)
			return -1;
		struct pollfd p = { .fd = c->out, .events = POLLIN };
		int r = poll(&p, 1, (int)(deadline - t < 1000 ? deadline - t : 1000));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		ssize_t n = read(c->out, c->buf + c->have, sizeof c->buf - c->have);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			return 0;
		c->have += (size_t)n;
		return 1;
	}
}

/* One frame's header parsed from the front of the buffer: its id, kind
 * and length; its size in *hl; 0 (need more), 1, -1 (malformed). */
static int header(struct call *c, char id[33], char *kind, size_t *len, size_t *hl)
{
	char *nl = memchr(c->buf, '\n', c->have < 200 ? c->have : 200);
	if (!nl)
		return c->have >= 200 ? -1 : 0;
	*nl = '\0';
	char k[4];
	unsigned long long n;
	int ok = sscanf(c->buf, "SRR1 %32[0-9a-f] %1[oed] %llu", id, k, &n) == 3 &&
		 strlen(id) == 32 && n <= (1ULL << 30);
	*kind = k[0];
	*len = (size_t)n;
	*hl = (size_t)(nl - c->buf) + 1;
	return ok ? 1 : -1;
}

static void consume(struct call *c, size_t n)
{
	memmove(c->buf, c->buf + n, c->have - n);
	c->have -= n;
}

static void need(struct call *c, uint64_t deadline)
{
	int r = fill(c, deadline);
	if (r > 0)
		return;
	if (r == 0) {
		fprintf(stderr, "sr-mcp: the session's interpreter ended during this call\n");
		report(c, 125);
		exit(125);
	}
	lose(c, stop ? "the call was cancelled (cancelling a session call ends its session)" :
	     "the code did not stop at its timeout_s (KeyboardInterrupt did not end it), so "
	     "the session was killed");
}

/* Frames until this call's done frame: its status (ok, error, interrupted).
 * "interrupted" counts as the timeout only once timeout_ms have passed
 * since the code was sent (at sent), by the host's clock: the interpreter
 * that says it is the code's process, and the code can send the frame. */
static int answer(struct call *c, uint64_t sent, uint64_t timeout_ms, uint64_t deadline)
{
	char id[33], kind, status[64];
	size_t len, hl;
	for (;;) {
		int h = header(c, id, &kind, &len, &hl);
		if (h < 0)
			lose(c, "its channel carried a malformed frame");
		if (h == 0) {
			need(c, deadline);
			continue;
		}
		consume(c, hl);
		int mine = strcmp(id, c->id) == 0;
		size_t left = len, got = 0;
		while (left) {
			if (!c->have)
				need(c, deadline);
			size_t k = c->have < left ? c->have : left;
			if (mine && kind != 'd')
				(void)sr_write_all(kind == 'o' ? 1 : 2, c->buf, k);
			else if (mine && got + k < sizeof status)
				memcpy(status + got, c->buf, k);
			got += k;
			left -= k;
			consume(c, k);
		}
		if (mine && kind == 'd') {
			status[got < sizeof status ? got : sizeof status - 1] = '\0';
			char *more = strchr(status, ' ');   /* "ok timers=N": session.js's */
			if (more) {
				*more++ = '\0';
				c->timers = strncmp(more, "timers=", 7) ? 0 : atoi(more + 7);
			}
			if (!strcmp(status, "interrupted") && ms_now() - sent >= timeout_ms)
				return 124;
			return !strcmp(status, "ok") ? 0 : 1;
		}
	}
}

static char *read_code(size_t *len)
{
	const char *path = getenv("SR_CODE");
	int fd = path ? open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to read the call's code");
	char *code = xmalloc((size_t)st.st_size + 1);
	size_t got = 0;
	for (ssize_t n; got < (size_t)st.st_size &&
	     (n = read(fd, code + got, (size_t)st.st_size - got)) > 0;)
		got += (size_t)n;
	close(fd);
	*len = got;
	return code;
}

/* ---- work left running, seen from outside ------------------------------
 * The code controls everything in the interpreter, its memory included, so
 * no secret there keeps a later call's answer from code left running (a
 * thread, a child process): what the host can do is look from outside.
 * The baseline (DIR/base-JOB) is the interpreter's tree before any code
 * ran: its processes and its threads. Before and after each call, a
 * process that is not in it is killed, and an interpreter with more
 * threads than it had (after a second's grace) is ended: a thread cannot
 * be killed alone from outside, and it could answer for a later call. */

static int in_base(const struct call *c, const struct session_proc *p)
{
	for (size_t i = 0; i < c->base.n; i++)
		if (c->base.p[i].pid == p->pid && c->base.p[i].start == p->start)
			return 1;
	return 0;
}

static int known(const void *c, const struct session_proc *p)
{
	return in_base(c, p);
}

/* One process or thread: "K pid start" (the interpreter's also its caught
 * signals) into the baseline. */
static void base_add(struct call *c, char k, const struct session_proc *p)
{
	if (k == 'I') {
		c->interp = *p;
	} else if (k == 'T' && c->nth < SESSION_THREADS_MAX) {
		c->th[c->nth++] = *p;
	} else if (k == 'P') {
		c->base.p = realloc(c->base.p, (c->base.n + 1) * sizeof *p);
		if (!c->base.p)
			sr_fatal(SR_EXIT_SYS, "out of memory");
		c->base.p[c->base.n++] = *p;
	}
}

static int base_read(struct call *c, char *text)
{
	for (char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		struct session_proc p = { .pid = 0 };
		unsigned long long sig = 0;
		char k;
		if (sscanf(l, "%c %d %llu %llx", &k, &p.pid, &p.start, &sig) < 3)
			return -1;
		if (k == 'I')
			c->base_sig = sig;
		base_add(c, k, &p);
	}
	return c->interp.pid && c->nth && c->base.n ? 0 : -1;
}

/* The baseline read, or made by the session's first call (the interpreter,
 * its threads, the processes of its tree): 0, or -1. */
static int baseline(struct call *c)
{
	char name[64], text[16384];
	snprintf(name, sizeof name, "base-%s", c->job);
	if (sr_read_small_at(c->dir, name, text, sizeof text) > 0)
		return base_read(c, text);
	struct session_tree t;
	if (session_tree_load(c->dir, c->job, &t) < 0)
		return -1;
	int me = session_interp(&t, c->dir), n = 0;
	if (me >= 0) {
		base_add(c, 'I', &t.p[me]);
		c->base_sig = session_sigcgt(t.p[me].pid);
		c->nth = session_threads(t.p[me].pid, c->th, SESSION_THREADS_MAX);
	}
	for (size_t i = 0; me >= 0 && i < t.n && i < 32; i++)
		base_add(c, 'P', &t.p[i]);
	free(t.p);
	if (me < 0 || c->nth <= 0)
		return -1;
	n = snprintf(text, sizeof text, "I %d %llu %llx\n", c->interp.pid, c->interp.start,
		     (unsigned long long)c->base_sig);
	for (int i = 0; i < c->nth && n < (int)sizeof text - 64; i++)
		n += snprintf(text + n, sizeof text - (size_t)n, "T %d %llu\n", c->th[i].pid, c->th[i].start);
	for (size_t i = 0; i < c->base.n && n < (int)sizeof text - 64; i++)
		n += snprintf(text + n, sizeof text - (size_t)n, "P %d %llu\n", c->base.p[i].pid,
			      c->base.p[i].start);
	int fd = openat(c->dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int bad = fd < 0 || sr_write_all(fd, text, (size_t)n) < 0;
	if (fd >= 0)
		close(fd);
	return bad ? -1 : 0;
}

/* The interpreter's threads not in the baseline (a thread of ours that
 * ended and another in its place counts), or -1 when it is gone. */
static int new_threads(const struct call *c)
{
	struct session_proc th[SESSION_THREADS_MAX];
	int n = session_threads(c->interp.pid, th, SESSION_THREADS_MAX), extra = 0;
	for (int i = 0; i < n; i++) {
		int known = 0;
		for (int j = 0; j < c->nth && !known; j++)
			known = th[i].pid == c->th[j].pid && th[i].start == c->th[j].start;
		extra += !known;
	}
	return n < 0 ? -1 : extra;
}

/* The processes not in the baseline killed (until none is left: one
 * that keeps starting more ends the session); what else the interpreter
 * runs beyond its baseline said in why: threads, or handlers of signals
 * (a timer's signal runs code between calls; SIGCHLD's is left out: Node
 * handles it for any child process, and children are killed here). 0
 * when there is none, 1, or -1 when the interpreter is gone. */
static int sweep(struct call *c, char *why, size_t len)
{
	struct session_tree t;
	for (int round = 0;; round++) {
		if (session_tree_load(c->dir, c->job, &t) < 0)
			return -1;
		int killed = 0, me = 0;
		for (size_t i = 0; i < t.n; i++) {
			int it = t.p[i].pid == c->interp.pid && t.p[i].start == c->interp.start;
			me |= it;
			if (!t.p[i].zombie && !it && !in_base(c, &t.p[i]) &&
			    !session_chain_own(&t, i, &c->interp, known, c) && kill(t.p[i].pid, SIGKILL) == 0)
				killed++;
		}
		free(t.p);
		c->killed += killed;
		if (killed && round == 9)
			lose(c, "processes of the interpreter kept starting new ones after they were "
			     "killed (work left running by a call), so the session was ended");
		if (killed) {
			usleep(20000);
			continue;
		}
		int extra = me ? new_threads(c) : -1;
		uint64_t sig = extra < 0 ? 0 : session_sigcgt(c->interp.pid) & ~c->base_sig &
			       ~(1ULL << (SIGCHLD - 1));
		if (extra < 0)
			return -1;
		if (extra > 0)
			snprintf(why, len, "%d thread%s running in the interpreter", extra,
				 extra > 1 ? "s" : "");
		else if (sig)
			snprintf(why, len, "a handler of signal %d (a timer's or another's) in the "
				 "interpreter", __builtin_ctzll(sig) + 1);
		return extra > 0 || sig;
	}
}

/* Before the code is sent: what earlier calls left. */
static void check_before(struct call *c)
{
	char what[200], why[600];
	if (baseline(c) < 0)
		lose(c, "its keeper's view of the interpreter could not be read (sr-mcp "
		     "--session-keep is not running for it)");
	if (sweep(c, what, sizeof what) > 0) {
		snprintf(why, sizeof why, "earlier code left %s: it could write this call's "
			 "answer, so the session was ended from outside", what);
		lose(c, why);
	}
}

/* After the answer: what this call left (a thread gets a second to end). */
static void check_after(struct call *c)
{
	char what[200];
	int left = sweep(c, what, sizeof what);
	for (int i = 0; i < 20 && left > 0; i++) {
		usleep(50000);
		left = sweep(c, what, sizeof what);
	}
	if (c->killed)
		fprintf(stderr, "sr-mcp: this call left %d process%s running: killed. A session "
			"call's processes must end with it (wait for them); use a plain run "
			"(session: false) for background work.\n", c->killed, c->killed > 1 ? "es" : "");
	if (left <= 0 && c->timers > 0) {
		snprintf(what, sizeof what, "%d timer%s pending in the interpreter's event loop",
			 c->timers, c->timers > 1 ? "s" : "");
		left = 1;
	}
	if (left <= 0)
		return;
	snprintf(c->ended, sizeof c->ended, "this call left %s: code left running could write "
		 "the answers of later calls, so the session was ended from outside (its variables "
		 "are gone, its files stay). End threads and timers before the code ends (Python: "
		 "thread.join(), signal.setitimer(..., 0); JavaScript: await worker.terminate(), "
		 "clearInterval), or use a plain run (session: false) for background work", what);
	end_interp(c, c->ended);
	fprintf(stderr, "sr-mcp: %s\n", c->ended);
}

/* ---- the workspace: the call's files applied by the session's jail ------- */

/* The quota as sr-jail words it ("8 MiB"), from the job's environment. */
static void quota_text(char *buf, size_t len)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	const char *q = getenv("SR_WORKSPACE_QUOTA");
	unsigned long long n = q ? strtoull(q, NULL, 10) : 0;
	int u = 0;
	while (u < 4 && n >= 1024 && n % 1024 == 0)
		n /= 1024, u++;
	snprintf(buf, len, "%llu %s", n, unit[u]);
}

/* After the answer: the session's jail applies what the call wrote (its
 * processes stopped meanwhile), so that the workspace has it when the
 * call returns. Its quota reached: said in the verdict file (where only
 * the chain writes, job_result.c: the result's hint) and on stderr; no
 * apply: said; no answer in time: the session is ended from outside (its
 * jail applies all as it ends). */
static void sync_files(struct call *c)
{
	char why[400], cap[48];
	int r = session_sync(c->dir, SESSION_SYNC_WAIT_MS, why, sizeof why);
	const char *vf = getenv("SR_VERDICT_FILE");
	if (r == SESSION_SYNC_FULL) {
		quota_text(cap, sizeof cap);
		fprintf(stderr, "sr-mcp: the workspace reached its quota of %s: writes past it "
			"failed (ENOSPC). Delete files you no longer need (in the code, or delete_path); "
			"room freed from files the workspace held before this session started is "
			"usable after restart_session.\n", cap);
		int fd = vf ? open(vf, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
		if (fd >= 0) {
			(void)dprintf(fd, "/workspace: quota of %s reached\n", cap);
			close(fd);
		}
	} else if (r == SESSION_SYNC_FAILED) {
		fprintf(stderr, "sr-mcp: the call's files were not all applied to the workspace: %s; "
			"the next call applies them again.\n", why);
	} else if (r < 0) {
		snprintf(c->ended, sizeof c->ended, "its jail did not apply the call's files to the "
			 "workspace (%s), so the session was ended from outside (its variables are gone; "
			 "its jail applies its files as it ends)", why);
		end_interp(c, c->ended);
		fprintf(stderr, "sr-mcp: %s\n", c->ended);
	}
}

/* ---- CPU: the interpreter's, charged to the tenant ----------------------- */

/* The interpreter tree's CPU now (its system part in *sys). */
static uint64_t tree_cpu(const struct call *c, uint64_t *sys)
{
	struct session_tree t;
	*sys = 0;
	if (session_tree_load(c->dir, c->job, &t) < 0)
		return 0;
	uint64_t ns = session_tree_cpu(&t, sys);
	free(t.p);
	return ns;
}

/* What a keeper's tree used and the calls have not charged yet: for each
 * DIR/cpu-JOB (now: the current tree's), less DIR/charged-JOB; a finished
 * keeper's pair removed once charged. ns. */
static uint64_t owed_one(struct call *c, const char *job, uint64_t now)
{
	char name[80], text[64];
	unsigned long long total = 0, charged = 0;
	int final = 0;
	snprintf(name, sizeof name, "cpu-%s", job);
	if (sr_read_small_at(c->dir, name, text, sizeof text) > 0)
		(void)sscanf(text, "%llu %d", &total, &final);
	if (now > total)
		total = now;
	snprintf(name, sizeof name, "charged-%s", job);
	if (sr_read_small_at(c->dir, name, text, sizeof text) > 0)
		(void)sscanf(text, "%llu", &charged);
	if (final && strcmp(job, c->job)) {    /* that keeper is gone: its files too */
		(void)unlinkat(c->dir, name, 0);
		snprintf(name, sizeof name, "base-%s", job);
		(void)unlinkat(c->dir, name, 0);
		snprintf(name, sizeof name, "cpu-%s", job);
		(void)unlinkat(c->dir, name, 0);
	} else {
		int n = snprintf(text, sizeof text, "%llu\n", total > charged ? total : charged);
		int fd = openat(c->dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			(void)sr_write_all(fd, text, (size_t)n);
			close(fd);
		}
	}
	return total > charged ? total - charged : 0;
}

static uint64_t owed(struct call *c, uint64_t now)
{
	uint64_t ns = 0;
	int fd = dup(c->dir);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "cpu-", 4) && strlen(de->d_name) == 36 &&
		    strspn(de->d_name + 4, "0123456789abcdef") == 32)
			ns += owed_one(c, de->d_name + 4, strcmp(de->d_name + 4, c->job) ? 0 : now);
	if (d)
		closedir(d);
	else if (fd >= 0)
		close(fd);
	return ns;
}

/* The size of the interpreter's proxy records (under --network allow,
 * STATE/made/JOB.net, beside the session's directory
 * STATE/sessions/t-TENANT/WS/LANG), -1 if it has none. */
static long long net_size(const struct call *c)
{
	char p[200];
	struct stat st;
	if (!job_id_ok(c->job))
		return -1;
	snprintf(p, sizeof p, "../../../../made/%s.net", c->job);
	return fstatat(c->dir, p, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) ?
	       (long long)st.st_size : -1;
}

/* The records the proxy wrote during the call, named in the report
 * (net_job, net_from, net_to): its result lists them (job_net_range). */
static int net_report(const struct call *c, char *buf, size_t len)
{
	long long now = net_size(c);
	if (now < 0)
		return 0;
	return snprintf(buf, len, ",\"net_job\":\"%s\",\"net_from\":%lld,\"net_to\":%lld", c->job,
			c->net0 > 0 ? c->net0 : 0, now);
}

/* The call's report on its stats descriptor, as sr-limit's for a run: the
 * interpreter's CPU during the call, and charge_cpu_ms, the interpreter's
 * CPU not charged yet (between calls too), which sr-queue's worker charges
 * to the tenant's --cpu-budget with the job's own. */
static void report(struct call *c, int rc)
{
	const char *fdv = getenv("SR_STATS_FD");
	if (c->reported || !c->t0 || !fdv)
		return;
	c->reported = 1;
	uint64_t sys, now = tree_cpu(c, &sys);
	uint64_t cpu = now > c->cpu0 ? now - c->cpu0 : 0, csys = sys > c->sys0 ? sys - c->sys0 : 0;
	uint64_t charge = owed(c, now);
	char line[1400];
	int n = snprintf(line, sizeof line, "{\"reason\":\"exit\",\"exit_code\":%d,\"wall_ms\":%llu,"
			 "\"user_ms\":%llu,\"sys_ms\":%llu,\"charge_cpu_ms\":%llu,\"session_killed\":%d",
			 rc, (unsigned long long)(ms_now() - c->t0),
			 (unsigned long long)((cpu - (csys < cpu ? csys : cpu)) / 1000000),
			 (unsigned long long)(csys / 1000000), (unsigned long long)(charge / 1000000),
			 c->killed);
	char pd[32];
	long long start = 0;
	snprintf(pd, sizeof pd, "/proc/%d", c->interp.pid);
	uint64_t peak = c->interp.pid && sr_proc_stat_num(AT_FDCWD, pd, 22, &start) == 0 &&
			(unsigned long long)start == c->interp.start ? session_mem(c->interp.pid, "VmHWM") : 0;
	if (peak)       /* the interpreter's, since it started */
		n += snprintf(line + n, sizeof line - (size_t)n, ",\"peak_memory_bytes\":%llu",
			      (unsigned long long)peak);
	if (*c->ended)
		n += snprintf(line + n, sizeof line - (size_t)n, ",\"session_ended\":\"%s\"", c->ended);
	n += net_report(c, line + n, sizeof line - (size_t)n);
	snprintf(line + n, sizeof line - (size_t)n, "}\n");
	(void)sr_write_all(atoi(fdv), line, strlen(line));
}

int session_call_main(int argc, char **argv)
{
	if (argc != 7)
		sr_fatal(SR_EXIT_USAGE, "usage: sr-mcp " SESSION_CALL_ARG
			 " DIR JOB SPOOL TIMEOUT_MS NOTE (sr-mcp runs it as a job)");
	struct call *c = xmalloc(sizeof *c);
	memset(c, 0, sizeof *c);
	c->job = argv[3];
	c->spool = argv[4];
	struct sigaction sa = { .sa_handler = on_term };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	size_t len;
	char *code = read_code(&len);
	c->dir = open(argv[2], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int lk = c->dir >= 0 ? openat(c->dir, "call.lock", O_RDWR | O_CREAT | O_NOFOLLOW |
				      O_CLOEXEC, 0600) : -1;
	if (lk < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to open the session's directory %s", argv[2]);
	while (flock(lk, LOCK_EX) < 0)    /* one call at a time: wait for those before */
		if (errno != EINTR || stop)
			sr_fatal(SR_EXIT_SYS, "cancelled while waiting for the session");
	connect_fifos(c);
	touch_used(c);
	check_before(c);
	c->cpu0 = tree_cpu(c, &c->sys0);
	c->t0 = ms_now();
	c->net0 = net_size(c);
	mcp_random_hex(c->id, 16);
	uint64_t sent = ms_now(), timeout_ms = strtoull(argv[5], NULL, 10);
	send_code(c, code, len, argv[5]);
	free(code);
	int rc = answer(c, sent, timeout_ms, ms_now() + timeout_ms + SESSION_GRACE_MS);
	check_after(c);
	sync_files(c);
	report(c, rc);
	touch_used(c);
	return rc;
}
