/* claim.c - a worker claims a job and starts it.
 *
 * Open queue/ID (never through a symbolic link, and only if it and its job
 * file are ours alone: else the job is refused, see sq_refuse()), take its
 * flock (never blocking), rename it to run/ID (the rename decides: only
 * one claimer can make it), fork the keeper, fsync run/ (once for all
 * the jobs claimed together), then tell the keepers to go: a keeper
 * readies its job while run/ is fsynced, and starts it only after. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <unistd.h>

#include "sr.h"
#include "spool.h"
#include "worker.h"

static struct sq_slot *free_slot(struct sq_worker *w)
{
	for (unsigned i = 0; i < w->nslots; i++)
		if (!w->slots[i].used)
			return &w->slots[i];
	return NULL;
}

/* Has this worker refused the job already? */
int sq_refused(const struct sq_worker *w, const char *id)
{
	for (size_t i = 0; i < w->nrefused; i++)
		if (strcmp(w->refused[i], id) == 0)
			return 1;
	return 0;
}

/* A job we will not run: a symbolic link, or not ours alone (someone else
 * could have written it). It is left where it is, untouched (it is not
 * ours to move or to write a result into), said once, and never claimed
 * by this worker again. */
void sq_refuse(struct sq_worker *w, const char *id, const char *why)
{
	if (sq_refused(w, id))
		return;
	sr_warn("refusing job %s/queue/%s: %s; not run, left in queue/", w->sp.path, id,
		why);
	w->refused = sr_grow(w->refused, w->nrefused, &w->caprefused, sizeof *w->refused);
	memcpy(w->refused[w->nrefused++], id, SQ_ID_LEN + 1);
}

enum sq_claim_result sq_claim(struct sq_worker *w, const struct sq_pick *p)
{
	struct sq_spool *sp = &w->sp;
	const char *id = p->id;
	char why[SQ_WHY_MAX];
	int fd = sq_open_private_dir(sp->queue, id, why, sizeof why);
	if (fd == SQ_REFUSED) {
		sq_refuse(w, id, why);
		return SQ_CLAIM_GONE;
	}
	if (fd < 0)
		return errno == ENOENT ? SQ_CLAIM_GONE : SQ_CLAIM_FAIL;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return SQ_CLAIM_BUSY;
	}
	int ok = sq_job_file_check(fd, why, sizeof why);
	if (ok < 0) {
		int e = errno;
		close(fd);
		if (ok == SQ_REFUSED) {
			sq_refuse(w, id, why);
			return SQ_CLAIM_GONE;
		}
		errno = e;
		return SQ_CLAIM_FAIL;
	}
	sq_crash_point("claim:after-lock");
	if (renameat(sp->queue, id, sp->run, id) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return e == ENOENT ? SQ_CLAIM_GONE : SQ_CLAIM_FAIL;
	}
	sq_crash_point("claim:after-rename");
	/* Cancelled (cancel asks first, so this also covers a cancel that
	 * died before it could move the job to done/). */
	if (sq_exists_at(sp->cancel, id)) {
		if (sq_job_finish_cancelled(sp, id, fd, sp->run) < 0)
			sr_warn_sys("unable to cancel job %s", id);
		close(fd);
		return SQ_CLAIM_GONE;
	}
	struct sq_slot *s = free_slot(w);
	s->used = 1;
	memcpy(s->id, id, SQ_ID_LEN + 1);
	s->tenant = p->ti;
	s->why = p->why;
	s->fd = fd;
	w->running++;
	sq_fair_running(&w->fair, p->ti, 1);
	return SQ_CLAIM_OK;
}

static void sync_claims(struct sq_worker *w)
{
	if (sq_fsync_dir(w->sp.run) < 0)
		sr_warn_sys("unable to fsync %s/run", w->sp.path);
	sq_crash_point("claim:after-sync");
}

/* Start the keepers of the jobs claimed in this round. They are forked
 * while the claims are not yet on disk, and wait on the go pipe: one byte
 * each once run/ is fsynced. Without the pipe, run/ is fsynced first. */
void sq_spawn_claimed(struct sq_worker *w)
{
	int any = 0, go[2];
	for (unsigned i = 0; i < w->nslots; i++)
		any |= w->slots[i].used && !w->slots[i].keeper;
	if (!any)
		return;
	if (pipe2(go, O_CLOEXEC) < 0) {
		go[0] = go[1] = -1;
		sync_claims(w);
	}
	unsigned started = 0;
	for (unsigned i = 0; i < w->nslots; i++) {
		struct sq_slot *s = &w->slots[i];
		if (!s->used || s->keeper)
			continue;
		s->keeper = sq_keeper_start(s->fd, s->id, w->viap, go[0], &s->repfd);
		if (s->keeper < 0) { /* nothing ran: put it back */
			sr_warn_sys("unable to start job %s; requeued", s->id);
			(void)renameat(w->sp.run, s->id, w->sp.queue, s->id);
			sq_defer(w, s->id, w->fair.t[s->tenant].name, 1000000000ULL);
			sq_slot_release(w, s);
			continue;
		}
		struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 2 + i };
		if (epoll_ctl(w->ep, EPOLL_CTL_ADD, s->repfd, &ev) < 0) {
			/* It may have started: stop it, it ends as lost. */
			sr_warn_sys("unable to follow job %s; stopping it", s->id);
			(void)kill(s->keeper, SIGTERM);
			close(s->repfd);
			s->repfd = -1;
			s->rep_eof = 1;
		}
		w->started++;
		started++;
		sq_crash_point("run:after-fork");
	}
	if (go[0] < 0)
		return;
	close(go[0]);
	sync_claims(w);
	for (unsigned i = 0; i < started; i++)
		(void)sr_write_all(go[1], "g", 1);
	close(go[1]);
}

void sq_defer(struct sq_worker *w, const char *id, const char *tenant, uint64_t delay_ns)
{
	w->def = sr_grow(w->def, w->ndef, &w->capdef, sizeof *w->def);
	struct sq_deferred *d = &w->def[w->ndef++];
	memcpy(d->id, id, SQ_ID_LEN + 1);
	snprintf(d->tenant, sizeof d->tenant, "%s", tenant);
	d->at = sr_now_ns() + delay_ns;
}

