/* stats.c - why the run ended, the exit code, and the one-line report. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sr.h"
#include "sr-limit.h"

#define TIMEOUT_VIA "timer, process group, subreaper"

static uint64_t cpu_ms(const struct outcome *out)
{
	const struct rusage *r = &out->ru;
	return (uint64_t)(r->ru_utime.tv_sec + r->ru_stime.tv_sec) * 1000 +
	       (uint64_t)(r->ru_utime.tv_usec + r->ru_stime.tv_usec) / 1000;
}

static uint64_t peak_bytes(const struct outcome *out)
{
	if (out->cg_peak_ok)
		return out->cg_peak;
	return (uint64_t)out->ru.ru_maxrss * 1024;
}

/* Without a cgroup the kernel does not say that an allocation was refused:
 * a run that ended abnormally with its peak resident size within 10% of the
 * memory limit is taken to have hit it. */
static int hit_memory_rlimit(const struct opts *o, const struct outcome *out)
{
	uint64_t lim = o->data.set ? o->data.value : o->as.set ? o->as.value : 0;
	int abnormal = WIFSIGNALED(out->status) ||
		       (WIFEXITED(out->status) && WEXITSTATUS(out->status) != 0);
	return lim && abnormal && peak_bytes(out) >= lim / 10 * 9;
}

const char *outcome_reason(const struct opts *o, const struct outcome *out)
{
	int sig = WIFSIGNALED(out->status) ? WTERMSIG(out->status) : 0;
	int abnormal = sig || (WIFEXITED(out->status) && WEXITSTATUS(out->status));

	if (out->setup_errno || out->exec_errno)
		return "error";
	if (out->timed_out)
		return "timeout";
	if (out->cg_oom_kills > 0 || (out->cg_ooms > 0 && abnormal))
		return "memory";
	if (o->cpu_ns.set && (sig == SIGXCPU ||
	    (sig == SIGKILL && cpu_ms(out) + 50 >= o->cpu_ns.value / 1000000ULL)))
		return "cpu";
	if (out->cg_pids_max_hits > 0 && abnormal)
		return "pids";
	if (hit_memory_rlimit(o, out))
		return "memory";
	return sig ? "signal" : "exit";
}

int outcome_exit_code(const struct opts *o, const struct outcome *out)
{
	(void)o;
	if (out->setup_errno)
		return SR_EXIT_SYS;
	if (out->exec_errno)
		return sr_exec_exit(out->exec_errno);
	if (out->timed_out)
		return SR_EXIT_TIMEOUT;
	return sr_status_to_exit(out->status);
}

/* For a reason that is a limit: which member of "limits" stopped the run
 * (NULL: none of ours, such as an enclosing cgroup's) and how. */
static void stopped_by(const struct opts *o, const struct outcome *out, const char *reason,
		       const char **limit, const char **via)
{
	*limit = *via = NULL;
	if (!strcmp(reason, "memory") && (out->cg_oom_kills || out->cg_ooms)) {
		*limit = o->mem.set ? "memory" : NULL;
		*via = o->mem.set ? "cgroup memory.max" : "an enclosing cgroup's memory.max";
	} else if (!strcmp(reason, "memory")) {
		*limit = o->data.set ? "data" : "address_space";
		*via = o->data.set ? "rlimit data" : "rlimit as";
	} else if (!strcmp(reason, "cpu")) {
		*limit = "cpu";
		*via = "rlimit cpu";
	} else if (!strcmp(reason, "pids")) {
		*limit = o->pids.set ? "pids" : NULL;
		*via = o->pids.set ? "cgroup pids.max" : "an enclosing cgroup's pids.max";
	} else if (!strcmp(reason, "timeout")) {
		*limit = "timeout";
		*via = TIMEOUT_VIA;
	}
}

static double ms(uint64_t ns)
{
	return (double)(ns / 1000ULL) / 1000.0;
}

static double tv_ms(struct timeval tv)
{
	return (double)tv.tv_sec * 1000.0 + (double)(tv.tv_usec / 1000) +
	       (double)(tv.tv_usec % 1000) / 1000.0;
}

/* A limit held: its value, the mechanism, and what it counts ("per"): the
 * run as a whole, each process, or all of a user's tasks on the host. */
static void add_limit(struct sr_jw *w, const char *name, const char *unit, double v,
		      const char *via, const char *per)
{
	sr_jw_open(w, name);
	sr_jw_num(w, unit, v);
	sr_jw_str(w, "via", via);
	sr_jw_str(w, "per", per);
	sr_jw_close(w);
}

static void pids_json(struct sr_jw *w, const struct opts *o, const struct enforced *e)
{
	if (e->cgroup) {
		add_limit(w, "pids", "count", (double)o->pids.value, "cgroup pids.max", "run");
		return;
	}
	/* RLIMIT_NPROC: the user's tasks, all of them, up to base + count. */
	sr_jw_open(w, "pids");
	sr_jw_num(w, "count", (double)o->pids.value);
	sr_jw_str(w, "via", "rlimit nproc");
	sr_jw_str(w, "per", "user");
	sr_jw_num(w, "uid", (double)e->nproc_uid);
	sr_jw_num(w, "base", (double)e->nproc_base);
	sr_jw_num(w, "rlimit", (double)e->nproc_rlimit);
	sr_jw_close(w);
}

/* The members in the order they have always had: memory, data,
 * address_space, cpu, pids, swap, cpus, nofile, fsize, stack, core,
 * timeout. */
static void run_limits_json(struct sr_jw *w, const struct opts *o, const struct enforced *e)
{
	if (o->pids.set && !(e->unheld & UNHELD_PIDS))
		pids_json(w, o, e);
	if (e->swap_off)
		add_limit(w, "swap", "bytes", 0, "cgroup memory.swap.max", "run");
	if (o->cpus_milli.set && !(e->unheld & UNHELD_CPUS))
		add_limit(w, "cpus", "cpus", (double)o->cpus_milli.value / 1000.0,
			  "cgroup cpu.max", "run");
}

static void limits_json(struct sr_jw *w, const struct opts *o, const struct enforced *e)
{
	const char *p = "process";
	sr_jw_open(w, "limits");
	if (o->mem.set && !(e->unheld & UNHELD_MEM))
		add_limit(w, "memory", "bytes", (double)o->mem.value, "cgroup memory.max", "run");
	if (o->data.set)
		add_limit(w, "data", "bytes", (double)o->data.value, "rlimit data", p);
	if (o->as.set)
		add_limit(w, "address_space", "bytes", (double)o->as.value, "rlimit as", p);
	if (o->cpu_ns.set) { /* SIGXCPU at the soft limit, SIGKILL a second later */
		sr_jw_open(w, "cpu");
		sr_jw_num(w, "seconds", (double)e->cpu_rlimit);
		sr_jw_str(w, "via", "rlimit cpu");
		sr_jw_str(w, "per", p);
		sr_jw_num(w, "hard_seconds", (double)e->cpu_rlimit + 1);
		sr_jw_close(w);
	}
	run_limits_json(w, o, e);
	if (o->nofile.set)
		add_limit(w, "nofile", "count", (double)o->nofile.value, "rlimit nofile", p);
	if (o->fsize.set)
		add_limit(w, "fsize", "bytes", (double)o->fsize.value, "rlimit fsize", p);
	if (o->stack.set)
		add_limit(w, "stack", "bytes", (double)o->stack.value, "rlimit stack", p);
	add_limit(w, "core", "bytes", (double)o->core.value, "rlimit core", p);
	if (o->timeout_ns) {
		sr_jw_open(w, "timeout");
		sr_jw_num(w, "ms", ms(o->timeout_ns));
		sr_jw_str(w, "via", TIMEOUT_VIA);
		sr_jw_str(w, "per", "run");
		sr_jw_num(w, "kill_after_ms", ms(o->kill_after_ns));
		sr_jw_close(w);
	}
	sr_jw_close(w);
}

static void unheld1(struct sr_jw *w, const char *name, const char *unit, double v,
		    const char *why)
{
	sr_jw_open(w, name);
	sr_jw_num(w, unit, v);
	sr_jw_str(w, "why", why);
	sr_jw_close(w);
}

/* --best-effort: what was asked for and does not hold, and why. Never
 * under "limits", where a reader would take it for held. */
static void unheld_json(struct sr_jw *w, const struct opts *o, const struct enforced *e)
{
	char why[512];
	if (!e->unheld)
		return;
	sr_jw_open(w, "not_enforced");
	snprintf(why, sizeof why, "no cgroup: %s", e->cgroup_why ? e->cgroup_why : "");
	if (e->unheld & UNHELD_MEM)
		unheld1(w, "memory", "bytes", (double)o->mem.value, why);
	if (e->unheld & UNHELD_CPUS)
		unheld1(w, "cpus", "cpus", (double)o->cpus_milli.value / 1000.0, why);
	snprintf(why, sizeof why, "RLIMIT_NPROC does not bind %s, and no cgroup: %s",
		 e->nproc_exempt ? e->nproc_exempt : "", e->cgroup_why ? e->cgroup_why : "");
	if (e->unheld & UNHELD_PIDS)
		unheld1(w, "pids", "count", (double)o->pids.value, why);
	sr_jw_close(w);
}

/* The report, one line. sr-limit is linked against musl, with no cJSON:
 * the line is built with lib's small writer (jw.c). */
static char *report_line(const struct opts *o, const struct enforced *e,
			 const struct outcome *out, size_t *len)
{
	struct sr_jw w = {0};
	int sig = WIFSIGNALED(out->status) ? WTERMSIG(out->status) : 0;
	int started = !out->setup_errno && !out->exec_errno;

	sr_jw_open(&w, NULL);
	const char *reason = outcome_reason(o, out), *limit, *via;
	sr_jw_str(&w, "reason", reason);
	stopped_by(o, out, reason, &limit, &via);
	if (limit)
		sr_jw_str(&w, "limit", limit);
	if (via)
		sr_jw_str(&w, "via", via);
	sr_jw_num(&w, "status", outcome_exit_code(o, out));
	if (started && WIFEXITED(out->status))
		sr_jw_num(&w, "exit_code", WEXITSTATUS(out->status));
	else
		sr_jw_null(&w, "exit_code");
	if (started && sig) {
		sr_jw_num(&w, "signal", sig);
		sr_jw_str(&w, "signal_name", sr_signal_name(sig) ? sr_signal_name(sig) : "?");
	} else {
		sr_jw_null(&w, "signal");
	}
	if (!started)
		sr_jw_str(&w, "error", strerror(out->setup_errno ?
			  out->setup_errno : out->exec_errno));
	sr_jw_num(&w, "wall_ms", ms(out->wall_ns));
	if (e->cgroup && (out->cg_user_us || out->cg_sys_us)) {
		sr_jw_num(&w, "user_ms", (double)out->cg_user_us / 1000.0);
		sr_jw_num(&w, "sys_ms", (double)out->cg_sys_us / 1000.0);
	} else {
		sr_jw_num(&w, "user_ms", tv_ms(out->ru.ru_utime));
		sr_jw_num(&w, "sys_ms", tv_ms(out->ru.ru_stime));
	}
	sr_jw_num(&w, "peak_memory_bytes", (double)peak_bytes(out));
	sr_jw_str(&w, "peak_memory_source", out->cg_peak_ok ?
		  "cgroup memory.peak" : "largest process maxrss");
	sr_jw_str(&w, "enforcement", e->cgroup ? "cgroup+rlimit" : "rlimit");
	if (e->cgroup)
		sr_jw_str(&w, "cgroup", e->cgroup_path);
	else
		sr_jw_str(&w, "cgroup_unavailable", e->cgroup_why ? e->cgroup_why : "");
	if (e->drop_resource)
		sr_jw_str(&w, "capabilities_dropped", "CAP_SYS_RESOURCE");
	limits_json(&w, o, e);
	unheld_json(&w, o, e);
	sr_jw_close(&w);
	return sr_jw_line(&w, len);
}

/* --stats FILE: find out before the program runs that the report can be
 * written there (its directory is there, ours to write in, FILE is no
 * directory), as sr_write_file_atomic will write it: 111 otherwise. */
void stats_check(const struct opts *o)
{
	const char *path = o->stats_path;
	if (!path)
		return;
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	if (*base == '\0')
		sr_usage_value("--stats", "file", path, "a file name, not a directory");
	char dir[PATH_MAX];
	int dlen = !slash ? 1 : slash == path ? 1 : (int)(slash - path);
	if (snprintf(dir, sizeof dir, "%.*s", dlen, slash ? path : ".") >= (int)sizeof dir)
		sr_usage_value("--stats", "file", path, "a shorter path");
	struct stat st;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to open the directory of --stats %s", path);
	if (faccessat(dfd, ".", W_OK, 0) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to write --stats %s", path);
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		sr_fatal_sys(SR_EXIT_SYS, "unable to write --stats %s", path);
	}
	close(dfd);
}

void stats_report(const struct opts *o, const struct enforced *e,
		  const struct outcome *out)
{
	if (!o->stats_path && o->stats_fd < 0 && !o->verbose)
		return;
	size_t len;
	char *line = report_line(o, e, out, &len);
	if (!line) {
		sr_warn("unable to build the stats report: out of memory");
		return;
	}
	if (o->stats_path && sr_write_file_atomic(o->stats_path, line, len) < 0)
		sr_warn_sys("unable to write stats to %s", o->stats_path);
	if (o->stats_fd >= 0 && sr_write_all(o->stats_fd, line, len) < 0)
		sr_warn_sys("unable to write stats to fd %d", o->stats_fd);
	if (o->verbose && !o->stats_path && o->stats_fd < 0)
		(void)sr_write_all(2, line, len);
	free(line);
}
