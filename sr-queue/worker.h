/* worker.h - the state of `sr-queue run`. */
#ifndef SR_QUEUE_WORKER_H
#define SR_QUEUE_WORKER_H

#include "queue.h"

struct slot {
	int used;
	char id[ID_LEN + 1];
	size_t tenant;          /* index in fair.t */
	int fd;                 /* job directory; we hold its flock */
	pid_t keeper;           /* 0 until spawned */
	int repfd;
	struct report rep;
	size_t replen;          /* bytes of rep read so far */
	char *stats;            /* then rep.stats_len bytes of sr-limit stats */
	size_t statslen;
	int rep_eof, keeper_gone, cancel, stop;
	int result_written, tries;
	uint64_t retry_at;      /* monotonic ns; 0 unless finishing failed */
};

struct deferred {
	char id[ID_LEN + 1];
	char tenant[TENANT_MAX + 1];
	uint64_t at;
};

struct worker {
	struct spool sp;
	struct fair fair;
	struct slot *slots;
	unsigned nslots, running;
	int ep, ino, sfd, wd_queue, wd_cancel;
	int drain, once, started, stopping, exit_code;
	struct deferred *def;
	size_t ndef, capdef;
	int *syncq;             /* finished job dirs waiting for fsync + close */
	size_t nsync;
	uint64_t next_rescan;
	char (*refused)[ID_LEN + 1];    /* jobs refused: never claimed again */
	size_t nrefused, caprefused;
};

/* finish.c */
enum claim_result { CLAIM_OK, CLAIM_GONE, CLAIM_BUSY, CLAIM_FAIL };
enum claim_result claim(struct worker *w, const char *id, size_t tenant);
void spawn_claimed(struct worker *w);
void finish(struct worker *w, struct slot *s);
void flush_sync(struct worker *w);
void kill_strays(struct worker *w);
void defer(struct worker *w, const char *id, const char *tenant, uint64_t delay_ns);
int refused(const struct worker *w, const char *id);
void refuse(struct worker *w, const char *id, const char *why);

#endif
