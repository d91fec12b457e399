/* spool_wait.c - waiting for a job to settle: the one wait of sr-queue's
 * commands (wait, cancel) and of sr-mcp. It looks at the job
 * (sq_job_resolve, which settles one whose worker died), then sleeps
 * until a job directory arrives in done/ (inotify), the next look is due
 * (a second at most: a dead worker is noticed so) or the deadline comes.
 *
 * A wait takes an inotify watch of its own, and only when the job has not
 * settled already: closing one costs some 15 ms (the kernel waits out an
 * RCU grace period). A process that waits for many jobs from many threads
 * (sr-mcp) gives the spool one watch for its life instead (sq_spool_watch),
 * read by a thread that wakes every waiter. Where the user's inotify
 * instances or watches are all taken (another tenant's runs may hold
 * them), waits poll: every tenth of a second with a watch of their own,
 * every 50 ms with the spool's, which is tried again every 10 s. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "spool.h"
#include "sr.h"

struct sq_news {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned long gen;      /* jobs arrived in done/ so far */
	int watching;           /* 1 watching, -1 polling */
	int told, ino;
	uint64_t retry_ms;      /* polling: when to try the watch again */
	void (*say)(const char *msg);
};

static int is_final(const char *state)
{
	return strcmp(state, "queued") != 0 && strcmp(state, "running") != 0;
}

/* An inotify instance watching sp's done/ (nonblock for a wait's own), or
 * -1 (errno). */
static int done_watch(const struct sq_spool *sp, int flags)
{
	char *done = sq_spool_subpath(sp, "done");
	int ino = done ? inotify_init1(IN_CLOEXEC | flags) : -1, e = errno;
	if (ino >= 0 && inotify_add_watch(ino, done, IN_MOVED_TO | IN_ONLYDIR) < 0) {
		e = errno;
		close(ino);
		ino = -1;
	}
	free(done);
	errno = e;
	return ino;
}

/* The spool's watch: every event wakes every waiter. */
static void *news_read(void *arg)
{
	struct sq_news *n = arg;
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		ssize_t got = read(n->ino, buf, sizeof buf);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return NULL;
		pthread_mutex_lock(&n->lock);
		n->gen++;
		pthread_cond_broadcast(&n->cond);
		pthread_mutex_unlock(&n->lock);
	}
}

/* Start the spool's watch if it is not running and it is time to try. */
static void news_try(const struct sq_spool *sp, struct sq_news *n)
{
	pthread_t t;
	uint64_t now = sr_now_ns() / 1000000;
	pthread_mutex_lock(&n->lock);
	if (n->watching < 1 && now >= n->retry_ms) {
		int e = 0;
		n->ino = done_watch(sp, 0);
		if (n->ino >= 0 && (e = pthread_create(&t, NULL, news_read, n)) == 0) {
			pthread_detach(t);
			n->watching = 1;
		} else {
			e = e ? e : errno;
			if (n->ino >= 0)
				close(n->ino);
			if (!n->told++ && n->say) {
				char msg[PATH_MAX + 300];
				snprintf(msg, sizeof msg, "unable to watch %s/done with inotify (%s: the "
					 "user's inotify instances or watches are taken); waits for "
					 "runs look every 50 ms instead", sp->path, strerror(e));
				n->say(msg);
			}
			n->watching = -1;
			n->retry_ms = now + 10000;
		}
	}
	pthread_mutex_unlock(&n->lock);
}

int sq_spool_watch(struct sq_spool *sp, void (*say)(const char *msg))
{
	struct sq_news *n = calloc(1, sizeof *n);
	if (!n)
		return -1;
	pthread_mutex_init(&n->lock, NULL);
	pthread_cond_init(&n->cond, NULL);
	n->say = say;
	n->ino = -1;
	sp->news = n;
	news_try(sp, n);
	return 0;
}

static unsigned long news_seen(struct sq_news *n)
{
	pthread_mutex_lock(&n->lock);
	unsigned long g = n->gen;
	pthread_mutex_unlock(&n->lock);
	return g;
}

/* The spool's watch: sleep until job id arrives in done/ after news_seen
 * gave g, or ms pass (polling: 50 ms at most). */
static void news_sleep(const struct sq_spool *sp, struct sq_news *n, const char *id,
		       unsigned long g, uint64_t ms)
{
	uint64_t end = sr_now_ns() + ms * 1000000ULL;
	pthread_mutex_lock(&n->lock);
	int watching = n->watching;
	pthread_mutex_unlock(&n->lock);
	if (watching < 1) {
		(void)poll(NULL, 0, ms < 50 ? (int)ms : 50);
		return;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t at = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec + ms * 1000000ULL;
	ts.tv_sec = (time_t)(at / 1000000000ULL);
	ts.tv_nsec = (long)(at % 1000000000ULL);
	pthread_mutex_lock(&n->lock);
	for (;;) {
		while (g == n->gen && pthread_cond_timedwait(&n->cond, &n->lock, &ts) == 0)
			;
		if (g == n->gen || sr_now_ns() >= end || sq_exists_at(sp->done, id))
			break;
		g = n->gen;     /* another job ended: sleep on */
	}
	pthread_mutex_unlock(&n->lock);
}

/* A wait's own watch (ino; -1: none, then a tenth of a second at most):
 * sleep until id arrives in done/, or ms pass. */
static void own_sleep(int ino, const char *id, uint64_t ms)
{
	int left = ms < 1000 ? (int)ms : 1000;
	if (ino < 0) {
		(void)poll(NULL, 0, left < 100 ? left : 100);
		return;
	}
	struct pollfd pf = { ino, POLLIN, 0 };
	while (poll(&pf, 1, left) > 0) {
		char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
		ssize_t n = read(ino, buf, sizeof buf);
		for (char *p = buf; n > 0 && p < buf + n;) {
			struct inotify_event *e = (struct inotify_event *)p;
			p += sizeof *e + e->len;
			if ((e->mask & IN_Q_OVERFLOW) || (e->len && strcmp(e->name, id) == 0))
				return;
		}
		left = 0; /* only drain what else is there */
	}
}

/* The time to the next look: a second, or less as look asked, or what is
 * left before the deadline (0: none). */
static uint64_t next_ms(uint64_t asked, uint64_t deadline)
{
	uint64_t ms = asked < 1000 ? asked : 1000;
	if (deadline) {
		uint64_t now = sr_now_ns();
		uint64_t left = deadline > now ? (deadline - now + 999999) / 1000000 : 0;
		ms = left < ms ? left : ms;
	}
	return ms;
}

/* The loop of sq_job_wait_with, once the first look found the job queued
 * or running; ino: the wait's own watch, or -1. */
static int wait_loop(struct sq_spool *sp, const char *id, const struct sq_waiter *w,
		     uint64_t deadline, int ino, struct sq_jstat *js)
{
	for (;;) {
		unsigned long g = sp->news ? news_seen(sp->news) : 0;
		if (sq_job_resolve(sp, id, js) < 0)
			return -1;
		if (is_final(js->state))
			return 0;
		if (deadline && sr_now_ns() >= deadline)
			return 1;
		uint64_t asked = 1000;
		if (w->look && w->look(w->ctx, js, &asked))
			return 2;
		sq_jstat_free(js);
		uint64_t ms = next_ms(asked, deadline);
		if (sp->news)
			news_sleep(sp, sp->news, id, g, ms);
		else
			own_sleep(ino, id, ms);
	}
}

int sq_job_wait_with(struct sq_spool *sp, const char *id, const struct sq_waiter *w,
		     struct sq_jstat *js)
{
	uint64_t deadline = w->timeout_ns ? sr_now_ns() + w->timeout_ns : 0;
	if (sp->news)
		news_try(sp, sp->news);
	if (sq_job_resolve(sp, id, js) < 0)
		return -1;
	if (is_final(js->state))
		return 0;
	if (deadline && sr_now_ns() >= deadline)
		return 1;       /* only a look was asked for: no watch taken */
	sq_jstat_free(js);
	int ino = sp->news ? -1 : done_watch(sp, IN_NONBLOCK);
	int r = wait_loop(sp, id, w, deadline, ino, js);
	int e = errno;
	if (ino >= 0)
		close(ino);
	errno = e;
	return r;
}

int sq_job_wait(struct sq_spool *sp, const char *id, uint64_t timeout_ns,
		struct sq_jstat *js)
{
	struct sq_waiter w = { .timeout_ns = timeout_ns };
	return sq_job_wait_with(sp, id, &w, js);
}
