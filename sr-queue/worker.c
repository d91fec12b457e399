/* worker.c - the event loop of a worker (`sr-queue run`).
 *
 * One process, one epoll: inotify on queue/ (new jobs) and cancel/
 * (cancel requests), a signalfd (children, stop), and one report pipe per
 * running job. No polling: the loop sleeps until an event, a deferred
 * claim, or the safety rescan (once a minute) is due.
 *
 * Unless inotify cannot be had: the kernel counts inotify instances and
 * watches per user, and another program of the user (another tenant's
 * runs) may hold them all (EMFILE, ENOSPC). Then the worker says so once
 * and looks at queue/ and cancel/ itself, every 50 ms after a change and
 * up to every 200 ms while nothing changes, trying inotify again at each
 * rescan: never dying, so that no job stays queued for want of it. */
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sr.h"
#include "spool.h"
#include "worker.h"

#define RESCAN_NS (60ULL * 1000000000ULL)
#define BUSY_RETRY_NS (20ULL * 1000000ULL)
#define POLL_MIN_MS 50
#define POLL_MAX_MS 200
#define TAG_INOTIFY 0
#define TAG_SIGNAL 1

/* Add a queued job to the index; its tenant is in its job file. A job
 * directory that is not ours alone is refused here already (claim looks
 * again: that is the check that counts). */
static void index_add(struct sq_worker *w, const char *id)
{
	char why[SQ_WHY_MAX];
	if (!sq_id_valid(id) || sq_refused(w, id))
		return;
	int fd = sq_open_private_dir(w->sp.queue, id, why, sizeof why);
	if (fd == SQ_REFUSED) {
		sq_refuse(w, id, why);
		return;
	}
	cJSON *j = NULL;
	if (fd >= 0) {
		(void)sq_job_read_at(fd, SQ_JOB_FILE, &j, NULL);
		close(fd);
	}
	const char *t = sq_json_str(j, "tenant");
	sq_fair_add(&w->fair, t && sq_tenant_valid(t) ? t : "default", id);
	cJSON_Delete(j);
}

static void index_one(int dfd, const char *name, void *ctx)
{
	(void)dfd;
	index_add(ctx, name);
}

static void rescan(struct sq_worker *w)
{
	sq_fair_clear(&w->fair);
	w->ndef = 0;
	sq_each_entry(w->sp.queue, index_one, w);
	w->next_rescan = sr_now_ns() + RESCAN_NS;
}

static void watch(struct sq_worker *w);

static void periodic(struct sq_worker *w)
{
	struct sq_recover_counts rc;
	sq_recover_all(&w->sp, &rc);
	if (w->poll_ms)
		watch(w);       /* inotify may be there again */
	rescan(w);
}

/* inotify on queue/ and cancel/: 0, or -1 (errno) with nothing held. */
static int watch_try(struct sq_worker *w)
{
	char *q = sq_spool_subpath(&w->sp, "queue"), *c = sq_spool_subpath(&w->sp, "cancel");
	int ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK), e;
	if (ino >= 0) {
		w->wd_queue = inotify_add_watch(ino, q, IN_MOVED_TO | IN_ONLYDIR);
		w->wd_cancel = inotify_add_watch(ino, c, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
	}
	e = errno;
	free(q);
	free(c);
	if (ino >= 0 && w->wd_queue >= 0 && w->wd_cancel >= 0) {
		w->ino = ino;
		return 0;
	}
	if (ino >= 0)
		close(ino);
	errno = e;
	return -1;
}

/* Watch, or else poll (said once). Again at each rescan while polling. */
static void watch(struct sq_worker *w)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TAG_INOTIFY };
	if (watch_try(w) == 0) {
		if (epoll_ctl(w->ep, EPOLL_CTL_ADD, w->ino, &ev) < 0)
			sr_fatal_sys(SR_EXIT_SYS, "unable to set up the event loop");
		if (w->poll_ms)
			sr_warn("inotify is available again: watching %s", w->sp.path);
		w->poll_ms = 0;
		return;
	}
	if (!w->poll_ms)
		sr_warn("unable to watch %s with inotify (%s: the user's inotify instances or "
			"watches are taken); looking at it every %d to %d ms instead", w->sp.path,
			strerror(errno), POLL_MIN_MS, POLL_MAX_MS);
	w->ino = -1;
	w->poll_ms = POLL_MIN_MS;
}

/* A directory's state, for polling: its modification time (ns) and
 * link count mixed; *sec the time's seconds. */
static uint64_t changed_at(int dfd, time_t *sec)
{
	struct stat st;
	*sec = 0;
	if (fstat(dfd, &st) < 0)
		return 0;
	*sec = st.st_mtim.tv_sec;
	return ((uint64_t)st.st_mtim.tv_sec * 1000000000ULL + (uint64_t)st.st_mtim.tv_nsec) * 31 +
	       (uint64_t)st.st_nlink;
}

/* Without inotify: what the events would have said. A directory changed
 * since the last look, or changed so recently that a second change could
 * share its time stamp (the kernel's clock ticks coarsely), is read
 * again: queue/ indexed anew, cancel/ looked up for each running job. */
static void poll_dirs(struct sq_worker *w)
{
	time_t qs, cs, now = time(NULL);
	uint64_t q = changed_at(w->sp.queue, &qs), c = changed_at(w->sp.cancel, &cs);
	int news = q != w->seen_queue || c != w->seen_cancel;
	if (q != w->seen_queue || qs + 2 > now) {
		w->seen_queue = q;
		rescan(w);
	}
	if (c != w->seen_cancel || cs + 2 > now) {
		w->seen_cancel = c;
		for (unsigned i = 0; i < w->nslots; i++) {
			struct sq_slot *s = &w->slots[i];
			if (s->used && s->keeper > 0 && !s->cancel && sq_exists_at(w->sp.cancel, s->id)) {
				s->cancel = 1;
				(void)kill(s->keeper, SIGTERM);
			}
		}
	}
	w->poll_ms = news ? POLL_MIN_MS : w->poll_ms * 2 < POLL_MAX_MS ? w->poll_ms * 2 : POLL_MAX_MS;
}

/* --via 'srun --quiet --': its words (split on white space, no shell),
 * with room after them for "EXE land SPOOL ID"; this program and the
 * spool by absolute path, which every node must share (the spool's as
 * given, links and all: a node may reach the storage by another way). */
static void via_setup(struct sq_worker *w, const char *via, const char *path)
{
	char *words = strdup(via), *save = NULL, exe[PATH_MAX];
	if (!words)
		sr_fatal_sys(SR_EXIT_SYS, "unable to allocate");
	for (char *t = strtok_r(words, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
		w->via.argv = sr_grow(w->via.argv, w->via.n + 5, &w->via.cap,
				      sizeof *w->via.argv);
		w->via.argv[w->via.n++] = t;
	}
	if (!w->via.n)
		sr_usage("--via: want a launcher command, got '%s'", via);
	w->via.argv = sr_grow(w->via.argv, w->via.n + 5, &w->via.cap, sizeof *w->via.argv);
	char *launcher = sr_find_program(w->via.argv[0]);
	if (!launcher)
		sr_fatal_sys(SR_EXIT_SYS, "unable to find the --via launcher '%s'",
			     w->via.argv[0]);
	free(launcher);
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to find this program (/proc/self/exe)");
	exe[n] = '\0';
	char *cwd = path[0] == '/' ? NULL : getcwd(NULL, 0);
	if (path[0] != '/' && !cwd)
		sr_fatal_sys(SR_EXIT_SYS, "unable to find the current directory");
	if (asprintf(&w->via.spool, "%s%s%s", cwd ? cwd : "", cwd ? "/" : "", path) < 0 ||
	    !(w->via.exe = strdup(exe)))
		sr_fatal_sys(SR_EXIT_SYS, "unable to allocate");
	free(cwd);
	w->viap = &w->via;
}

static void setup(struct sq_worker *w, const struct sq_run_opts *o, const char *path)
{
	sigset_t set;
	memset(w, 0, sizeof *w);
	w->nslots = o->jobs;
	w->drain = o->drain || o->idle_ns;
	w->idle_ns = o->idle_ns;
	w->once = o->once;
	w->slots = calloc(w->nslots, sizeof *w->slots);
	w->syncq = calloc(w->nslots, sizeof *w->syncq);
	if (!w->slots || !w->syncq)
		sr_fatal_sys(SR_EXIT_SYS, "unable to allocate");
	for (unsigned i = 0; i < w->nslots; i++)
		w->slots[i].fd = w->slots[i].repfd = -1;
	sq_fair_init(&w->fair, o->budget_ns, o->window_ns);
	sr_cloexec_from(3, NULL, 0); /* nothing we inherited reaches a job */
	char why[PATH_MAX + 200];
	if (sq_spool_try_open(&w->sp, path, 1, why, sizeof why) < 0)
		sr_fatal(SR_EXIT_SYS, "%s", why);
	if (o->via)
		via_setup(w, o->via, path);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to become a child subreaper");
	sr_supervisor_sigset(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	w->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	w->ep = epoll_create1(EPOLL_CLOEXEC);
	if (w->sfd < 0 || w->ep < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to set up the event loop");
	struct epoll_event es = { .events = EPOLLIN, .data.u64 = TAG_SIGNAL };
	if (epoll_ctl(w->ep, EPOLL_CTL_ADD, w->sfd, &es) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to set up the event loop");
	watch(w);
}

static void teardown(struct sq_worker *w)
{
	sq_flush_sync(w);
	close(w->ep);
	if (w->ino >= 0)
		close(w->ino);
	close(w->sfd);
	sq_spool_close(&w->sp);
	sq_fair_free(&w->fair);
	free(w->slots);
	free(w->syncq);
	free(w->def);
	free(w->refused);
	if (w->viap) {
		free(w->via.argv[0]);   /* the words */
		free(w->via.argv);
		free(w->via.exe);
		free(w->via.spool);
	}
}

static void claim_failed(struct sq_worker *w, const struct sq_pick *p)
{
	sr_warn_sys("unable to claim job %s; it stays queued", p->id);
	if (w->drain || w->once) {
		w->exit_code = SR_EXIT_SYS;
		w->stopping = 1;
		return;
	}
	sq_defer(w, p->id, w->fair.t[p->ti].name, 1000000000ULL);
}

/* Claim as many jobs as there are free slots, then start them. The
 * budget never leaves a slot free while a job is queued (fair.c). */
static void start_jobs(struct sq_worker *w)
{
	struct sq_pick p;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts); /* the clock of the ids */
	uint64_t wall = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	while (!w->stopping && w->running < w->nslots && !(w->once && w->started)) {
		if (sq_fair_pick(&w->fair, sr_now_ns(), wall, &p) != 0)
			break;
		switch (sq_claim(w, &p)) {
		case SQ_CLAIM_OK:
			if (w->once)
				w->started = 1;
			break;
		case SQ_CLAIM_GONE: break;
		case SQ_CLAIM_BUSY: sq_defer(w, p.id, w->fair.t[p.ti].name, BUSY_RETRY_NS); break;
		case SQ_CLAIM_FAIL: claim_failed(w, &p); break;
		}
	}
	sq_fair_round(&w->fair, wall);
	sq_spawn_claimed(w);
}

static struct sq_slot *slot_of(struct sq_worker *w, const char *id)
{
	for (unsigned i = 0; i < w->nslots; i++)
		if (w->slots[i].used && strcmp(w->slots[i].id, id) == 0)
			return &w->slots[i];
	return NULL;
}

static void on_inotify(struct sq_worker *w)
{
	char buf[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	while ((n = read(w->ino, buf, sizeof buf)) > 0) {
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *e = (struct inotify_event *)p;
			p += sizeof *e + e->len;
			if (e->mask & IN_Q_OVERFLOW) {
				rescan(w);
				continue;
			}
			if (!e->len)
				continue;
			if (e->wd == w->wd_queue) {
				index_add(w, e->name);
			} else if (e->wd == w->wd_cancel) {
				struct sq_slot *s = slot_of(w, e->name);
				if (s && s->keeper > 0 && !s->cancel) {
					s->cancel = 1;
					(void)kill(s->keeper, SIGTERM);
				}
			}
		}
	}
}

static void on_child(struct sq_worker *w)
{
	int st, stray = 0;
	pid_t pid;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		struct sq_slot *s = NULL;
		for (unsigned i = 0; i < w->nslots && !s; i++)
			if (w->slots[i].used && w->slots[i].keeper == pid)
				s = &w->slots[i];
		if (!s) {
			stray = 1; /* its children are ours now: kill them too */
			continue;
		}
		s->keeper_gone = 1;
		if (s->rep_eof)
			sq_finish(w, s);
	}
	if (stray)
		sq_kill_strays(w);
}

/* First SIGTERM/SIGINT: take no new job, finish the running ones. Second:
 * kill the running jobs too (they are requeued or lost, as after a crash). */
static void on_stop(struct sq_worker *w)
{
	if (w->stopping++ == 0) {
		if (w->running)
			sr_note("stopping: waiting for %u running job(s) to end; a second SIGTERM or SIGINT kills them",
				w->running);
		return;
	}
	for (unsigned i = 0; i < w->nslots; i++) {
		struct sq_slot *s = &w->slots[i];
		if (s->used && s->keeper > 0 && !s->keeper_gone) {
			s->stop = 1;
			(void)kill(s->keeper, SIGTERM);
		}
	}
}

static void on_signal(struct sq_worker *w)
{
	struct signalfd_siginfo si;
	int child = 0;
	while (read(w->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
		if (si.ssi_signo == SIGCHLD)
			child = 1;
		else if (si.ssi_signo == SIGHUP)
			periodic(w);
		else
			on_stop(w);
	}
	if (child)
		on_child(w);
}

/* Where the next bytes of a keeper's report go: the struct, then the stats. */
static char *report_room(struct sq_slot *s, size_t *room)
{
	if (s->replen < sizeof s->rep) {
		*room = sizeof s->rep - s->replen;
		return (char *)&s->rep + s->replen;
	}
	size_t want = s->rep.stats_len < SQ_STATS_MAX ? s->rep.stats_len : SQ_STATS_MAX;
	if (!s->stats && !(s->stats = malloc(want + 1)))
		sr_fatal_sys(SR_EXIT_SYS, "unable to allocate");
	*room = want - s->statslen;
	return s->stats + s->statslen;
}

static void on_report(struct sq_worker *w, struct sq_slot *s)
{
	for (;;) {
		size_t room;
		char *p = report_room(s, &room), extra;
		ssize_t n = read(s->repfd, room ? p : &extra, room ? room : 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0 || !room)
			break; /* EOF, an error, or more than a report */
		if (s->replen < sizeof s->rep)
			s->replen += (size_t)n;
		else
			s->statslen += (size_t)n;
	}
	(void)epoll_ctl(w->ep, EPOLL_CTL_DEL, s->repfd, NULL);
	close(s->repfd);
	s->repfd = -1;
	s->rep_eof = 1;
	if (s->keeper_gone)
		sq_finish(w, s);
}

static uint64_t min_nonzero(uint64_t a, uint64_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/* Deferred claims and failed finishes that are due; returns the next due time. */
static uint64_t due_work(struct sq_worker *w)
{
	uint64_t now = sr_now_ns(), next = w->next_rescan;
	size_t k = 0;
	for (size_t i = 0; i < w->ndef; i++) {
		if (w->def[i].at <= now)
			sq_fair_add(&w->fair, w->def[i].tenant, w->def[i].id);
		else
			w->def[k++] = w->def[i];
		next = min_nonzero(next, w->def[i].at);
	}
	w->ndef = k;
	for (unsigned i = 0; i < w->nslots; i++) {
		struct sq_slot *s = &w->slots[i];
		if (s->used && s->retry_at && s->retry_at <= now)
			sq_finish(w, s);
		if (s->used && s->retry_at)
			next = min_nonzero(next, s->retry_at);
	}
	return next;
}

/* --drain / --once: done when nothing runs and nothing is left to claim;
 * --idle: when that has been so for idle_ns. */
static int finished(struct sq_worker *w)
{
	if (w->running) {
		w->idle_since = 0;
		return 0;
	}
	if (w->stopping)
		return 1;
	if (!w->drain && !w->once)
		return 0;
	if (w->once && w->started)
		return 1;
	if (sq_fair_count(&w->fair) || w->ndef) {
		w->idle_since = 0;
		return 0;
	}
	uint64_t now = sr_now_ns();
	if (w->idle_since && now - w->idle_since < w->idle_ns)
		return 0;       /* idle, not for long enough yet */
	rescan(w); /* trust, but verify */
	if (sq_fair_count(&w->fair))
		return 0;
	if (!w->idle_since)
		w->idle_since = now;
	return now - w->idle_since >= w->idle_ns;
}

static void loop(struct sq_worker *w)
{
	struct epoll_event ev[32];
	for (;;) {
		start_jobs(w);
		sq_flush_sync(w);
		if (finished(w))
			return;
		uint64_t now = sr_now_ns();
		uint64_t next = due_work(w);
		if (w->idle_since)
			next = min_nonzero(next, w->idle_since + w->idle_ns);
		int timeout = next <= now ? 0 : (int)((next - now + 999999) / 1000000);
		if (w->poll_ms && (timeout < 0 || timeout > w->poll_ms))
			timeout = w->poll_ms;
		int n = epoll_wait(w->ep, ev, 32, timeout);
		if (n < 0 && errno != EINTR)
			sr_fatal_sys(SR_EXIT_SYS, "unable to wait for events");
		for (int i = 0; i < n; i++) {
			uint64_t tag = ev[i].data.u64;
			if (tag == TAG_INOTIFY)
				on_inotify(w);
			else if (tag == TAG_SIGNAL)
				on_signal(w);
			else if (tag - 2 < w->nslots && w->slots[tag - 2].used &&
				 w->slots[tag - 2].repfd >= 0)
				on_report(w, &w->slots[tag - 2]);
		}
		if (w->poll_ms)
			poll_dirs(w);
		if (sr_now_ns() >= w->next_rescan)
			periodic(w);
		(void)due_work(w);
	}
}

int sq_worker_run(const char *path, const struct sq_run_opts *o)
{
	struct sq_worker w;
	setup(&w, o, path);
	periodic(&w); /* settle what dead workers left, index the queue */
	loop(&w);
	int code = w.exit_code;
	teardown(&w);
	return code;
}
