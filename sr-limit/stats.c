/* stats.c - why the run ended, the exit code, and the one-line report. */
#include <cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "sr.h"
#include "sr-limit.h"

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
	uint64_t lim = o->mem.set ? o->mem.value : o->as.set ? o->as.value : 0;
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
	if (out->cg_oom_kills > 0)
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
		return out->exec_errno == ENOENT || out->exec_errno == ENOTDIR ?
		       SR_EXIT_NOTFOUND : SR_EXIT_NOEXEC;
	if (out->timed_out)
		return SR_EXIT_TIMEOUT;
	return sr_status_to_exit(out->status);
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

static void add_limit(cJSON *lim, const char *name, const char *unit, double v,
		      const char *via)
{
	cJSON *l = cJSON_AddObjectToObject(lim, name);
	cJSON_AddNumberToObject(l, unit, v);
	cJSON_AddStringToObject(l, "via", via);
}

static cJSON *limits_json(const struct opts *o, const struct enforced *e)
{
	cJSON *lim = cJSON_CreateObject();
	if (o->mem.set)
		add_limit(lim, "memory", "bytes", (double)o->mem.value,
			  e->cgroup ? "cgroup memory.max" : "rlimit data");
	if (o->as.set)
		add_limit(lim, "address_space", "bytes", (double)o->as.value, "rlimit as");
	if (o->cpu_ns.set)
		add_limit(lim, "cpu", "seconds", (double)e->cpu_rlimit, "rlimit cpu");
	if (o->pids.set) {
		add_limit(lim, "pids", "count", (double)o->pids.value,
			  e->cgroup ? "cgroup pids.max" : "rlimit nproc");
		if (!e->cgroup)
			cJSON_AddNumberToObject(cJSON_GetObjectItem(lim, "pids"),
						"rlimit", (double)e->nproc_rlimit);
	}
	if (o->cpus_milli.set)
		add_limit(lim, "cpus", "cpus", (double)o->cpus_milli.value / 1000.0,
			  "cgroup cpu.max");
	if (o->nofile.set)
		add_limit(lim, "nofile", "count", (double)o->nofile.value, "rlimit nofile");
	if (o->fsize.set)
		add_limit(lim, "fsize", "bytes", (double)o->fsize.value, "rlimit fsize");
	if (o->stack.set)
		add_limit(lim, "stack", "bytes", (double)o->stack.value, "rlimit stack");
	add_limit(lim, "core", "bytes", (double)o->core.value, "rlimit core");
	if (o->timeout_ns) {
		add_limit(lim, "timeout", "ms", ms(o->timeout_ns), "timer, process group, subreaper");
		cJSON_AddNumberToObject(cJSON_GetObjectItem(lim, "timeout"),
					"kill_after_ms", ms(o->kill_after_ns));
	}
	return lim;
}

static cJSON *report_json(const struct opts *o, const struct enforced *e,
			  const struct outcome *out)
{
	cJSON *j = cJSON_CreateObject();
	int sig = WIFSIGNALED(out->status) ? WTERMSIG(out->status) : 0;
	int started = !out->setup_errno && !out->exec_errno;

	cJSON_AddStringToObject(j, "reason", outcome_reason(o, out));
	cJSON_AddNumberToObject(j, "status", outcome_exit_code(o, out));
	if (started && WIFEXITED(out->status))
		cJSON_AddNumberToObject(j, "exit_code", WEXITSTATUS(out->status));
	else
		cJSON_AddNullToObject(j, "exit_code");
	if (started && sig) {
		cJSON_AddNumberToObject(j, "signal", sig);
		cJSON_AddStringToObject(j, "signal_name", sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
	} else {
		cJSON_AddNullToObject(j, "signal");
	}
	if (!started)
		cJSON_AddStringToObject(j, "error", strerror(out->setup_errno ?
					out->setup_errno : out->exec_errno));
	cJSON_AddNumberToObject(j, "wall_ms", ms(out->wall_ns));
	if (e->cgroup && (out->cg_user_us || out->cg_sys_us)) {
		cJSON_AddNumberToObject(j, "user_ms", (double)out->cg_user_us / 1000.0);
		cJSON_AddNumberToObject(j, "sys_ms", (double)out->cg_sys_us / 1000.0);
	} else {
		cJSON_AddNumberToObject(j, "user_ms", tv_ms(out->ru.ru_utime));
		cJSON_AddNumberToObject(j, "sys_ms", tv_ms(out->ru.ru_stime));
	}
	cJSON_AddNumberToObject(j, "peak_memory_bytes", (double)peak_bytes(out));
	cJSON_AddStringToObject(j, "peak_memory_source", out->cg_peak_ok ?
				"cgroup memory.peak" : "largest process maxrss");
	cJSON_AddStringToObject(j, "enforcement", e->cgroup ? "cgroup+rlimit" : "rlimit");
	if (e->cgroup)
		cJSON_AddStringToObject(j, "cgroup", e->cgroup_path);
	else
		cJSON_AddStringToObject(j, "cgroup_unavailable", e->cgroup_why ? e->cgroup_why : "");
	cJSON_AddItemToObject(j, "limits", limits_json(o, e));
	return j;
}

void stats_report(const struct opts *o, const struct enforced *e,
		  const struct outcome *out)
{
	if (!o->stats_path && o->stats_fd < 0 && !o->verbose)
		return;
	cJSON *j = report_json(o, e, out);
	if (!j) {
		sr_warn("unable to build the stats report: out of memory");
		return;
	}
	if (o->stats_path && sr_json_write_file(o->stats_path, j) < 0)
		sr_warn_sys("unable to write stats to %s", o->stats_path);
	if (o->stats_fd >= 0 && sr_json_write_line(o->stats_fd, j) < 0)
		sr_warn_sys("unable to write stats to fd %d", o->stats_fd);
	if (o->verbose && !o->stats_path && o->stats_fd < 0)
		(void)sr_json_write_line(2, j);
	cJSON_Delete(j);
}
