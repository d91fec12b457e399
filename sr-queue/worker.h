/* worker.h - sr-queue's worker: `sr-queue run` over the spool core.
 *
 * worker.c is the event loop, claim.c takes jobs from the queue and starts
 * them, keeper.c supervises one job, finish.c records how it ended, and
 * fair.c chooses which queued job runs next. This layer includes only
 * spool.h (and lib/'s sr.h), never the commands' cli.h. */
#ifndef SQ_WORKER_H
#define SQ_WORKER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "spool.h"

/* worker.c: serve the spool at path until there is nothing left to do
 * (drain, once) or a signal stops it; the exit code. */
struct sq_run_opts {
	unsigned jobs;                  /* slots, at least 1 */
	uint64_t budget_ns, window_ns;  /* --cpu-budget; budget_ns 0: none */
	int drain, once;
	uint64_t idle_ns;               /* --idle: exit after this long with nothing to do */
	const char *via;                /* --via: the launcher's words; NULL: run here */
};
int sq_worker_run(const char *path, const struct sq_run_opts *o);

/* fair.c: the in-memory index of queued jobs, by tenant. */
struct sq_tenant {
	char name[SQ_TENANT_MAX + 1];
	char (*heap)[SQ_ID_LEN + 1];
	size_t n, cap;
	unsigned running;       /* its jobs running now */
	int64_t tokens;         /* CPU ns left in the budget; down to -budget */
	uint64_t refill_ns;     /* monotonic time of the last refill */
	uint64_t busy_ns;       /* wall ns: its jobs last waited for a free slot */
	uint64_t held_ns;       /* wall ns: last passed over for its budget */
	uint64_t held_pending;  /* passed over in this round (sq_fair_round) */
};
struct sq_fair {
	struct sq_tenant *t;
	size_t nt, cap, rr;
	uint64_t budget_ns, window_ns;  /* budget_ns 0: no budget */
};
/* Why a job waited in the queue: not at all (or for the worker to come),
 * for a free slot, or because its tenant was over its CPU budget while
 * another's jobs waited (which takes precedence). */
enum sq_wait { SQ_WAIT_NONE, SQ_WAIT_SLOTS, SQ_WAIT_BUDGET };
struct sq_pick {
	char id[SQ_ID_LEN + 1];
	size_t ti;              /* its tenant, an index in t */
	enum sq_wait why;
};
void sq_fair_init(struct sq_fair *f, uint64_t budget_ns, uint64_t window_ns);
void sq_fair_free(struct sq_fair *f);
void sq_fair_add(struct sq_fair *f, const char *tenant, const char *id);
void sq_fair_clear(struct sq_fair *f);
size_t sq_fair_count(const struct sq_fair *f);
int sq_fair_pick(struct sq_fair *f, uint64_t now, uint64_t wall, struct sq_pick *p);
void sq_fair_round(struct sq_fair *f, uint64_t wall);
void sq_fair_running(struct sq_fair *f, size_t ti, int delta);
void sq_fair_charge(struct sq_fair *f, size_t ti, uint64_t cpu_ns, uint64_t now);
uint64_t sq_id_time(const char *id);    /* an id's submission time, wall ns */
int sq_parse_budget(const char *s, uint64_t *budget, uint64_t *window);

/* keeper.c: the per-job supervisor, forked by the worker; it reports how
 * the job ended through a pipe: a struct sq_report, then stats_len bytes. */
enum sq_fail_stage { SQ_FS_NONE, SQ_FS_JOB, SQ_FS_STDIN, SQ_FS_FILES, SQ_FS_CWD,
		     SQ_FS_EXEC, SQ_FS_SETUP, SQ_FS_VIA };
enum sq_killed { SQ_KILLED_NO, SQ_KILLED_ASKED, SQ_KILLED_TIMEOUT };
struct sq_report {
	int32_t stage;          /* SQ_FS_NONE: the job ran */
	int32_t err;            /* errno of a failed stage */
	int32_t status;         /* wait status of the job's main process */
	int32_t killed;         /* enum sq_killed: asked (cancel, stop), timeout */
	int32_t out_err, err_err;
	uint64_t started_ms, finished_ms, wall_ns, user_ns, sys_ns;
	uint64_t out_stored, out_total, err_stored, err_total;
	uint32_t stats_len;     /* that many bytes of sr-limit stats follow */
	uint64_t stats_total;   /* of stats_total the job wrote (over SQ_STATS_MAX: cut) */
	int32_t node_lost;      /* --via: the node ended without telling how the job did */
	int32_t node_cancel;    /* --via: the node was asked to stop it (scancel) */
	char why[800];          /* --via: why the job did not start on a node */
};

/* --via: the launcher's argv, with room for "EXE land SPOOL ID" after it. */
struct sq_via {
	char **argv;
	size_t n, cap;          /* the launcher's own words; room */
	char *exe, *spool;      /* this program and the spool, as absolute paths */
};
pid_t sq_keeper_start(int jobfd, const char *id, const struct sq_via *via, int gofd,
		      int *repfd);

/* via.c: the node's side of --via (`sr-queue land SPOOL ID`), and what the
 * keeper reads back from the job's directory once the launcher has ended. */
#define SQ_LANDED_FILE "landed"     /* the node's record, one JSON line */
#define SQ_STATS_FILE "stats"       /* the job's fd 3 on the node */
#define VIA_GRACE_MS 10000          /* a launcher's time to stop its step */
void sq_via_forget(int jobfd);
void sq_via_collect(int jobfd, int status, struct sq_report *rep, char *stats,
		    size_t *statslen);
int sq_land_record(const char *dir, const struct sq_report *rep, const char *host,
		   int final);
void sq_land_job(int jobfd, const char *id, struct sq_report *rep);    /* keeper.c */

/* The worker's state. */
struct sq_slot {
	int used;
	char id[SQ_ID_LEN + 1];
	size_t tenant;          /* index in fair.t */
	enum sq_wait why;       /* why it waited in the queue */
	int fd;                 /* job directory; we hold its flock */
	pid_t keeper;           /* 0 until spawned */
	int repfd;
	struct sq_report rep;
	size_t replen;          /* bytes of rep read so far */
	char *stats;            /* then rep.stats_len bytes of sr-limit stats */
	size_t statslen;
	int rep_eof, keeper_gone, cancel, stop;
	int result_written, tries;
	uint64_t retry_at;      /* monotonic ns; 0 unless finishing failed */
};

struct sq_deferred {
	char id[SQ_ID_LEN + 1];
	char tenant[SQ_TENANT_MAX + 1];
	uint64_t at;
};

struct sq_worker {
	struct sq_spool sp;
	struct sq_fair fair;
	struct sq_slot *slots;
	unsigned nslots, running;
	int ep, ino, sfd, wd_queue, wd_cancel;
	int drain, once, started, stopping, exit_code;
	uint64_t idle_ns, idle_since;   /* --drain is --idle 0; idle_since 0: busy */
	struct sq_deferred *def;
	size_t ndef, capdef;
	int *syncq;             /* finished job dirs waiting for fsync + close */
	size_t nsync;
	uint64_t next_rescan;
	int poll_ms;            /* 0: inotify; else polling, the next interval */
	uint64_t seen_queue, seen_cancel;       /* polling: queue/'s, cancel/'s last change */
	struct sq_via via, *viap;       /* viap NULL: jobs run here */
	char (*refused)[SQ_ID_LEN + 1];    /* jobs refused: never claimed again */
	size_t nrefused, caprefused;
};

/* claim.c: from queue/ to run/, then the keepers started. */
enum sq_claim_result { SQ_CLAIM_OK, SQ_CLAIM_GONE, SQ_CLAIM_BUSY, SQ_CLAIM_FAIL };
enum sq_claim_result sq_claim(struct sq_worker *w, const struct sq_pick *p);
void sq_spawn_claimed(struct sq_worker *w);
void sq_defer(struct sq_worker *w, const char *id, const char *tenant, uint64_t delay_ns);
int sq_refused(const struct sq_worker *w, const char *id);
void sq_refuse(struct sq_worker *w, const char *id, const char *why);

/* finish.c: the result recorded, from run/ to done/. */
void sq_finish(struct sq_worker *w, struct sq_slot *s);
void sq_flush_sync(struct sq_worker *w);
void sq_kill_strays(struct sq_worker *w);
void sq_slot_release(struct sq_worker *w, struct sq_slot *s);

#endif
