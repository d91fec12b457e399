/* sr-limit.h - resource limits, wall clock and a JSON report. */
#ifndef SR_LIMIT_H
#define SR_LIMIT_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

enum cg_mode { CG_AUTO, CG_OFF, CG_REQUIRE };

#define CG_PATH_MAX 512           /* the base cgroup's path, at most */
#define CG_LEAF "sr-limit.leaf"   /* where the base's own processes go */
#define CG_RUN_PREFIX "sr-limit." /* a run's cgroup: sr-limit.PID */

/* One rlimit asked for on the command line. */
struct rl {
	int set;
	uint64_t value;
};

struct opts {
	struct rl mem;      /* --mem: cgroup memory.max (needs a cgroup) */
	struct rl data;     /* --data: RLIMIT_DATA, per process, private memory */
	struct rl as;       /* --as: RLIMIT_AS */
	struct rl cpu_ns;   /* --cpu: RLIMIT_CPU (whole seconds, rounded up) */
	struct rl pids;     /* --pids: cgroup pids.max, else relative RLIMIT_NPROC */
	struct rl nofile;   /* --nofile: RLIMIT_NOFILE */
	struct rl fsize;    /* --fsize: RLIMIT_FSIZE */
	struct rl stack;    /* --stack: RLIMIT_STACK */
	struct rl core;     /* --core: RLIMIT_CORE (0 unless asked) */
	struct rl cpus_milli; /* --cpus: cgroup cpu.max, in thousandths of a CPU */
	uint64_t timeout_ns;  /* 0: none */
	uint64_t kill_after_ns;
	enum cg_mode cgroup;
	const char *stats_path;
	int stats_fd;         /* -1: none */
	int verbose;
	int best_effort;      /* --best-effort: a limit that cannot hold is reported, not refused */
	char **argv;          /* the program and its arguments */
};

/* Limits asked for that do not hold here, run anyway under --best-effort:
 * the report lists them under "not_enforced", never under "limits". */
enum { UNHELD_MEM = 1, UNHELD_CPUS = 2, UNHELD_PIDS = 4 };

/* What was enforced, for the report. */
struct enforced {
	int cgroup;                  /* a child cgroup was used */
	char cgroup_path[CG_PATH_MAX + 32];
	int cgroup_lock;             /* its cgroup.procs, locked while we live */
	int swap_off;                /* memory.swap.max was set to 0 */
	const char *cgroup_why;      /* why not, when auto fell back */
	unsigned unheld;             /* UNHELD_*: asked for, not enforced */
	const char *nproc_exempt;    /* whom RLIMIT_NPROC would not bind, or NULL */
	uid_t nproc_uid;             /* the real uid RLIMIT_NPROC counts */
	uint64_t nproc_base;         /* user's tasks when the run started */
	rlim_t nproc_rlimit;         /* the RLIMIT_NPROC value set */
	int drop_resource;           /* prog runs without CAP_SYS_RESOURCE */
	rlim_t cpu_rlimit;           /* RLIMIT_CPU soft limit set, seconds */
};

/* How the run ended. */
struct outcome {
	int status;          /* wait status of prog */
	int timed_out;
	int setup_errno;     /* non-zero: a limit could not be set in the child */
	int exec_errno;      /* non-zero: prog could not be executed */
	uint64_t wall_ns;
	struct rusage ru;    /* RUSAGE_CHILDREN of the whole tree */
	/* cgroup read-back (valid when enforced.cgroup) */
	uint64_t cg_peak, cg_user_us, cg_sys_us, cg_ooms, cg_oom_kills, cg_pids_max_hits;
	int cg_peak_ok;
};

/* rlimits.c */
int rl_prepare(const struct opts *o, struct enforced *e);
int rl_apply(const struct opts *o, const struct enforced *e);
int rl_drop_resource(const struct enforced *e);

/* cgroup.c */
int cg_setup(const struct opts *o, struct enforced *e);

/* cgroup_run.c */
int cg_write(const char *dir, const char *file, const char *val);
char *cg_read(const char *dir, const char *file);
int cg_open_procs(const char *dir);
int cg_configure(const struct opts *o, struct enforced *e);
int cg_enter(const struct enforced *e);           /* in the child */
void cg_kill(const struct enforced *e);
void cg_destroy(const char *dir);
void cg_collect(const struct enforced *e, struct outcome *out);
void cg_remove(struct enforced *e);

/* supervise.c */
void supervise(const struct opts *o, struct enforced *e, struct outcome *out);

/* stats.c */
const char *outcome_reason(const struct opts *o, const struct outcome *out);
int outcome_exit_code(const struct opts *o, const struct outcome *out);
void stats_check(const struct opts *o);
void stats_report(const struct opts *o, const struct enforced *e,
		  const struct outcome *out);

#endif
