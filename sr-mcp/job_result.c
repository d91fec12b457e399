/* result.c - what a model gets back from a run: the status in words it
 * can act on, the output (cut to fit the client, head and tail kept, made
 * safe to read), and sr-limit's account of what the run cost and which
 * limit stopped it. The output is read from the job's files in the spool
 * (SPOOL/run/ID/ while it runs, SPOOL/done/ID/ after), never through a
 * symbolic link. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "images.h"
#include "job.h"
#include "mcp.h"
#include "text.h"
#include "spool.h"
#include "sr.h"

/* Stream output from offset, at most budget bytes: head and tail kept
 * with a marker between. Sets the size stored so far, the bytes left
 * out, whether bytes were replaced. Returns the cleaned text. */
struct piece {
	uint64_t size, dropped;
	int replaced, absent;   /* absent: no file (none made, or removed since) */
};

static char *stream_text(const char *id, const char *stream, uint64_t off, size_t budget,
			 struct piece *pc)
{
	int fd = job_file(id, stream);
	struct stat st;
	memset(pc, 0, sizeof *pc);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		pc->absent = 1;
		return xstrdup("");
	}
	pc->size = (uint64_t)st.st_size;
	uint64_t avail = off < pc->size ? pc->size - off : 0;
	struct text_buf b = {0};
	text_put(&b, "", 0);
	size_t got;
	if (avail <= budget) {
		char *raw = job_read_at(fd, off, (size_t)avail, &got);
		char *t = text_clean(raw, got, &pc->replaced);
		free(raw);
		close(fd);
		free(b.p);
		return t;
	}
	size_t half = budget / 2;
	char *head = job_read_at(fd, off, half, &got);
	size_t hl = got;
	while (hl > 0 && ((unsigned char)head[hl - 1] & 0xc0) == 0x80)
		hl--;  /* do not cut a character in two */
	if (hl > 0 && (unsigned char)head[hl - 1] >= 0xc0)
		hl--;
	uint64_t tail_off = pc->size - half;
	size_t tl;
	char *tail = job_read_at(fd, tail_off, half, &tl);
	size_t skip = 0;
	while (skip < tl && ((unsigned char)tail[skip] & 0xc0) == 0x80)
		skip++;
	pc->dropped = avail - hl - (tl - skip);
	char *h = text_clean(head, hl, &pc->replaced);
	char *t = text_clean(tail + skip, tl - skip, &pc->replaced);
	char marker[200];
	int m = snprintf(marker, sizeof marker,
			 "\n[... %llu bytes of %s not shown: job_logs with offset %llu reads them ...]\n",
			 (unsigned long long)pc->dropped, stream, (unsigned long long)(off + hl));
	text_put(&b, h, strlen(h));
	text_put(&b, marker, (size_t)m);
	text_put(&b, t, strlen(t));
	free(head);
	free(tail);
	free(h);
	free(t);
	close(fd);
	return b.p;
}

static double num(const cJSON *o, const char *k, double dflt)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* status and reason, from sr-queue's state and sr-limit's report. */
static void outcome(const cJSON *st, const char **status, const char **reason)
{
	const char *state = str(st, "state");
	const cJSON *lim = cJSON_GetObjectItem(st, "limit");
	const char *lr = str(lim, "reason"), *qr = str(st, "reason");
	*reason = lr ? lr : qr ? qr : state;
	if (!state || !strcmp(state, "queued") || !strcmp(state, "running")) {
		*status = state ? state : "error";
		*reason = *status;
	} else if (!strcmp(state, "cancelled") || !strcmp(state, "lost")) {
		*status = *reason = state;
	} else if (!strcmp(state, "failed")) {
		*status = "error";
	} else if (lr && !strcmp(lr, "timeout")) {
		*status = "timed_out";
	} else if (lr && !strcmp(lr, "memory")) {
		*status = "oom";
	} else if (lr && (!strcmp(lr, "cpu") || !strcmp(lr, "signal"))) {
		*status = "killed";
	} else if (lr && !strcmp(lr, "error")) {
		*status = "error";
	} else if (qr && !strcmp(qr, "timeout")) {
		*status = "timed_out";
	} else if (qr && !strcmp(qr, "signal")) {
		*status = "killed";
	} else {
		*status = num(lim ? lim : st, "exit_code", 1) == 0 ? "succeeded" : "failed";
	}
}

/* The workspace a job ran in: its working directory under workspaces/. */
static const char *workspace_of(const cJSON *st)
{
	const char *cwd = str(st, "cwd");
	size_t n = strlen(cfg.workspaces);
	if (!cwd || strncmp(cwd, cfg.workspaces, n) || cwd[n] != '/')
		return NULL;
	return cwd + n + 1;
}

static const char *hint_for(const char *status, const char *id)
{
	static __thread char h[300];
	if (!strcmp(status, "queued") || !strcmp(status, "running"))
		snprintf(h, sizeof h, "The job is still %s. Call job_status with job_id \"%s\" "
			 "and wait_s 45 to wait for it and get the output since the offsets "
			 "given; cancel_job stops it.", status, id);
	else if (!strcmp(status, "timed_out"))
		snprintf(h, sizeof h, "The run was stopped at its time limit: make it faster, "
			 "or ask for a larger timeout_s (sandbox_info gives the cap).");
	else if (!strcmp(status, "error"))
		snprintf(h, sizeof h, "The sandbox could not run the code (see error): this is "
			 "not a fault of the code. Tell the user; sandbox_info shows the setup.");
	else if (!strcmp(status, "lost"))
		snprintf(h, sizeof h, "The worker running the job died; its result is unknown. "
			 "Run it again.");
	else
		return NULL;
	return h;
}

/* The program started: the verdict file's last word from sr-exec
 * (--report-fd) is "exec", written before an exec that then succeeded
 * (else "exec failed" follows). Without it (a runner that keeps no
 * verdict file, or a chain that failed before sr-exec's exec) the stderr
 * is the chain's alone. */
static int program_started(const char *id)
{
	size_t got;
	char *v = job_tail(id, JOB_VERDICT_FILE, 4096, &got), *p = v;
	int started = 0;
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "exec\n", 5) || !strncmp(p, "exec failed\n", 12))
			started = p[4] == '\n';
	free(v);
	return started;
}

/* The chain itself failed (a tool of it said "fatal" and exited 111, 126
 * or 127) before the program started: its line, else NULL. The code's
 * own failures, and lines, are the code's. */
static char *chain_failure(const char *id, const cJSON *st)
{
	const cJSON *lim = cJSON_GetObjectItem(st, "limit");
	double code = num(lim ? lim : st, "exit_code", 0);
	size_t got;
	char *tail = (code == 111 || code == 126 || code == 127) && !program_started(id) ?
		job_tail(id, "stderr", 1024, &got) : NULL;
	if (!tail)
		return NULL;
	while (got && tail[got - 1] == '\n')
		tail[--got] = '\0';
	char *line = strrchr(tail, '\n');
	line = line ? line + 1 : tail;
	static const char *const tools[] = { "sr-limit: fatal: ", "sr-jail: fatal: ",
					     "sr-exec: fatal: " };
	for (size_t i = 0; i < 3; i++)
		if (strncmp(line, tools[i], strlen(tools[i])) == 0) {
			int r = 0;
			char *clean = text_clean(line, strlen(line), &r);
			free(tail);
			return clean;
		}
	free(tail);
	return NULL;
}

/* A line of the job's verdict file (job.h, JOB_VERDICT_FILE) that begins
 * with pre and ends with end: what lies between in buf (up to len - 1),
 * and 1; else 0. Only the chain writes that file, never the run's code. */
static int verdict_line(const char *id, const char *pre, const char *end, char *buf,
			size_t len)
{
	size_t got, pl = strlen(pre), el = strlen(end);
	char *v = job_tail(id, JOB_VERDICT_FILE, 4096, &got);
	int found = 0;
	for (char *p = v; p && *p && !found; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t n = strcspn(p, "\n");
		if (n < pl + el || strncmp(p, pre, pl) || memcmp(p + n - el, end, el))
			continue;
		size_t k = n - pl - el < len ? n - pl - el : len - 1;
		snprintf(buf, len, "%.*s", (int)k, p + pl);
		found = 1;
	}
	free(v);
	return found;
}

/* The workspace reached its quota: sr-jail's PID 1 says so in the verdict
 * file (sr-jail --report-fd), after the program and all it started are
 * dead; the stderr line it also writes the program could have printed.
 * The cap as the line words it ("1 GiB", "1000 inodes") in cap, and 1;
 * else 0. */
static int quota_hit(const char *id, char *cap, size_t len)
{
	return verdict_line(id, "/workspace: quota of ", " reached", cap, len);
}

/* What the spool did not keep of a finished job (st its status), its
 * files as the result found them (po, pe): sr-queue's account
 * (sq_result_losses); the count in v. */
static size_t losses(const cJSON *st, const struct piece *po, const struct piece *pe,
		     struct sq_loss v[SQ_LOSS_MAX])
{
	long long size[2] = { po->absent ? -1 : (long long)po->size,
			      pe->absent ? -1 : (long long)pe->size };
	const char *state = str(st, "state");
	if (!state || !strcmp(state, "queued") || !strcmp(state, "running"))
		return 0;
	return sq_result_losses(st, size, v);
}

/* A stream's text t with, at its end, what of the stream was not kept
 * (v, n): nothing can read it, so never "job_logs reads them". */
static char *lost_marker(char *t, const char *stream, const struct sq_loss *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *r;
		if (strcmp(v[i].what, stream) ||
		    asprintf(&r, "%s%s[... %s%s ...]\n", t, *t && t[strlen(t) - 1] != '\n' ?
			     "\n" : "", v[i].text, v[i].bytes > 0 ?
			     "; nothing can read them, job_logs neither" : "") < 0)
			continue;
		free(t);
		t = r;
	}
	return t;
}

/* The bytes of stream that nothing can read. */
static double lost_bytes(const char *stream, const struct sq_loss *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].what, stream) && v[i].bytes > 0)
			return (double)v[i].bytes;
	return 0;
}

/* A job's output in o: stdout gets three quarters of the room, stderr the
 * rest, and what one does not use the other may. The text block repeats
 * it, so the room is half the result's. */
static size_t result_output(cJSON *o, const char *id, const cJSON *st, uint64_t out_off,
			    uint64_t err_off, struct sq_loss lv[SQ_LOSS_MAX])
{
	size_t room = cfg.max_chars > 4000 ? (cfg.max_chars - 4000) / 2 : 1000;
	struct piece po, pe;
	char *e = stream_text(id, "stderr", err_off, room / 4, &pe);
	size_t used_e = strlen(e);
	char *out = stream_text(id, "stdout", out_off, room - used_e, &po);
	if (pe.dropped && strlen(out) < room * 3 / 4) {
		free(e);
		e = stream_text(id, "stderr", err_off, room - strlen(out), &pe);
	}
	size_t nl = losses(st, &po, &pe, lv);
	out = lost_marker(out, "stdout", lv, nl);
	e = lost_marker(e, "stderr", lv, nl);
	cJSON_AddStringToObject(o, "stdout", out);
	cJSON_AddStringToObject(o, "stderr", e);
	free(out);
	free(e);
	double so_total = num(st, "stdout_total", (double)po.size);
	double se_total = num(st, "stderr_total", (double)pe.size);
	cJSON_AddNumberToObject(o, "stdout_bytes", so_total);
	cJSON_AddNumberToObject(o, "stderr_bytes", se_total);
	/* dropped: what job_logs reads; lost: what nothing can */
	cJSON_AddNumberToObject(o, "stdout_dropped_bytes", (double)po.dropped);
	cJSON_AddNumberToObject(o, "stderr_dropped_bytes", (double)pe.dropped);
	cJSON_AddNumberToObject(o, "stdout_lost_bytes", lost_bytes("stdout", lv, nl));
	cJSON_AddNumberToObject(o, "stderr_lost_bytes", lost_bytes("stderr", lv, nl));
	cJSON_AddNumberToObject(o, "stdout_offset", (double)(po.size > out_off ? po.size : out_off));
	cJSON_AddNumberToObject(o, "stderr_offset", (double)(pe.size > err_off ? pe.size : err_off));
	cJSON_AddBoolToObject(o, "invalid_utf8", po.replaced || pe.replaced);
	return nl;
}

/* What a done job used (lim: sr-limit's report, if any). */
static void result_usage(cJSON *o, const cJSON *st, const cJSON *lim, int done)
{
	if (done && lim) {
		cJSON_AddNumberToObject(o, "wall_ms", num(lim, "wall_ms", 0));
		cJSON_AddNumberToObject(o, "cpu_ms", num(lim, "user_ms", 0) + num(lim, "sys_ms", 0));
		cJSON_AddNumberToObject(o, "peak_memory_bytes", num(lim, "peak_memory_bytes", 0));
	} else if (done) {
		cJSON_AddNumberToObject(o, "wall_ms", num(st, "wall_ms", 0));
		cJSON_AddNumberToObject(o, "cpu_ms", num(st, "user_ms", 0) + num(st, "sys_ms", 0));
		cJSON_AddNullToObject(o, "peak_memory_bytes");
	} else {
		cJSON_AddNullToObject(o, "wall_ms");
		cJSON_AddNullToObject(o, "cpu_ms");
		cJSON_AddNullToObject(o, "peak_memory_bytes");
	}
}

/* Whether a job's workspace reached its quota (disk), and the quota. */
struct result_quota {
	int disk;
	char cap[32];
};

/* The limit that stopped the job, in o; whether its workspace reached
 * its quota (q->disk, the quota in q->cap) or not. */
static void result_limit(cJSON *o, const char *id, const char *status, const char *reason,
			 int done, struct result_quota *q)
{
	static const struct { const char *status, *limit; } stopped[] = {
		{ "timed_out", "timeout" }, { "oom", "memory" },
	};
	const char *which = NULL;
	for (size_t i = 0; i < sizeof stopped / sizeof *stopped; i++)
		if (!strcmp(status, stopped[i].status))
			which = stopped[i].limit;
	if (!which && !strcmp(reason, "cpu"))
		which = "cpu";
	if (!which && !strcmp(reason, "pids"))
		which = "pids";
	int disk = q->disk = done && quota_hit(id, q->cap, sizeof q->cap);
	if (!which && disk)
		which = "disk";
	if (which)
		cJSON_AddStringToObject(o, "limit_hit", which);
	else
		cJSON_AddNullToObject(o, "limit_hit");
	cJSON_AddBoolToObject(o, "quota_hit", disk);
}

/* The typescript runner's check failed and none of the code ran: its
 * driver (runners/node-lib/ts.js) says so in the verdict file, which it
 * closes before any of the code runs. */
static int typecheck_failed(const char *id)
{
	char none[8];
	return verdict_line(id, JOB_VERDICT_TYPECHECK, "", none, sizeof none);
}

/* What to do next, in o: the status's hint, and the quota's. */
static void result_hint(cJSON *o, const char *status, const char *id,
			const struct result_quota *q, const cJSON *st, const char *oom)
{
	const char *cap = q->cap;
	const char *h = hint_for(status, id);
	char hq[1400], hm[700];
	if (!strcmp(status, "oom") || oom) {
		job_oom_hint(hm, sizeof hm, st, !strcmp(status, "oom"), oom);
		h = hm;
	} else if (!strcmp(status, "failed") && typecheck_failed(id)) {
		h = "The TypeScript did not type-check and none of it ran: fix each error at the "
		    "/run/sr/main.ts:LINE:COL stderr gives, and run it again (a line's check can be "
		    "skipped with // @ts-ignore above it, the whole file's with // @ts-nocheck at "
		    "its top).";
	}
	if (q->disk) {
		int inodes = strstr(cap, "inodes") != NULL;
		snprintf(hq, sizeof hq, "%s%sThe workspace reached its quota of %s%s: %s past it "
			 "failed with ENOSPC or were not kept (what fitted was kept). Delete %s "
			 "you no longer need (delete_path, or in the code), %s, or use a new "
			 "workspace.", h ? h : "", h ? " " : "", cap,
			 inodes ? " (files, directories and links, counted each)" : "",
			 inodes ? "new files and directories" : "writes",
			 inodes ? "files and directories" : "files",
			 inodes ? "make fewer of them" : "write less");
		h = hq;
	}
	if (h)
		cJSON_AddStringToObject(o, "hint", h);
}

/* What the spool did not keep (v, n), in o: "lost", one sentence, and
 * what to do about it after the hint. status is still how the program
 * ended: the loss is the spool's, not the program's. */
static void result_lost(cJSON *o, const struct sq_loss *v, size_t n)
{
	struct text_buf b = {0}, h = {0};
	const char *hint = str(o, "hint");
	int failed = 0, cut = 0, report = 0;
	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		text_put(&b, i ? "; " : "", i ? 2 : 0);
		text_put(&b, v[i].text, strlen(v[i].text));
		report |= !strcmp(v[i].what, "limit");
		cut |= strcmp(v[i].what, "limit") && v[i].kind == SQ_LOSS_CAP;
		failed |= strcmp(v[i].what, "limit") && v[i].kind != SQ_LOSS_CAP;
	}
	cJSON_AddStringToObject(o, "lost", b.p);
	text_put(&h, hint ? hint : "", hint ? strlen(hint) : 0);
	static const char *const say[] = {
		" Part of the output was not kept (see lost): those bytes cannot be read, by "
		"job_logs or otherwise, and status still says how the program ended. If the "
		"reason is a full disk, tell the user: where sr-mcp keeps its jobs has no room.",
		" The output went past what a run keeps of each stream: the rest was not kept.",
		" sr-limit's report of the run was not kept (see lost): whether a limit stopped "
		"it, and what it used, are not known; status comes from its exit alone.",
		" To keep large output, write it to a file in /workspace and read it with "
		"read_file.",
	};
	int want[] = { failed, cut, report, failed || cut };
	for (size_t i = 0; i < 4; i++)
		if (want[i])
			text_put(&h, say[i] + (h.p && h.p[0] ? 0 : 1),
				 strlen(say[i]) - (h.p && h.p[0] ? 0 : 1));
	if (cJSON_GetObjectItem(o, "hint"))
		cJSON_ReplaceItemInObject(o, "hint", cJSON_CreateString(h.p));
	else
		cJSON_AddStringToObject(o, "hint", h.p);
	free(b.p);
	free(h.p);
}

cJSON *job_result_object(const char *id, const char *workspace, const cJSON *st,
		     uint64_t out_off, uint64_t err_off)
{
	const char *status, *reason;
	outcome(st, &status, &reason);
	char *sandbox = strcmp(status, "failed") ? NULL : chain_failure(id, st);
	if (sandbox) {
		status = "error";
		reason = "sandbox";
	}
	char cause[128];           /* the program's report of an allocation refused */
	const char *oom = NULL;
	if (!sandbox && (!strcmp(status, "failed") || !strcmp(status, "killed") ||
			 !strcmp(status, "oom")) && job_oom_cause(id, st, cause, sizeof cause))
		oom = cause;       /* its word: the status stays sr-limit's */
	const cJSON *lim = cJSON_GetObjectItem(st, "limit");
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "job_id", id);
	if (!workspace)
		workspace = workspace_of(st);
	if (workspace)
		cJSON_AddStringToObject(o, "workspace_id", workspace);
	cJSON_AddStringToObject(o, "status", status);
	cJSON_AddStringToObject(o, "reason", reason);

	int done = strcmp(status, "queued") && strcmp(status, "running");
	const cJSON *ec = cJSON_GetObjectItem(lim ? lim : st, "exit_code");
	if (done && cJSON_IsNumber(ec))
		cJSON_AddNumberToObject(o, "exit_code", ec->valuedouble);
	else
		cJSON_AddNullToObject(o, "exit_code");
	const char *sig = str(lim, "signal_name");
	if (done && sig)
		cJSON_AddStringToObject(o, "signal", sig);
	else
		cJSON_AddNullToObject(o, "signal");

	struct sq_loss lv[SQ_LOSS_MAX];
	size_t nl = result_output(o, id, st, out_off, err_off, lv);

	result_usage(o, st, lim, done);
	job_queued(o, st);
	struct result_quota q = { .cap = "" };
	result_limit(o, id, status, reason, done, &q);
	if (!strcmp(status, "oom") && job_oom_limit(lim) > 0)
		cJSON_AddNumberToObject(o, "memory_limit_bytes", job_oom_limit(lim));
	const char *err = str(st, "error");
	if (sandbox)
		cJSON_AddStringToObject(o, "error", sandbox);
	else if (err)
		cJSON_AddStringToObject(o, "error", err);
	free(sandbox);
	result_hint(o, status, id, &q, st, oom);
	result_lost(o, lv, nl);
	return o;
}

/* What of a finished job's stream was not kept, its file found at size
 * (-1: not there): in l, 1; else 0 (or still running). */
static int stream_lost(const char *id, const char *stream, long long size, struct sq_loss *l)
{
	struct sq_loss v[SQ_LOSS_MAX];
	cJSON *res = NULL;
	long long sizes[2] = { SQ_SIZE_UNKNOWN, SQ_SIZE_UNKNOWN };
	int dfd = job_file(id, "."), found = 0;
	if (dfd >= 0)
		(void)sq_job_read_at(dfd, SQ_JOB_FILE, NULL, &res);
	if (dfd >= 0)
		close(dfd);
	sizes[strcmp(stream, "stdout") != 0] = size;
	size_t n = res ? sq_result_losses(res, sizes, v) : 0;
	for (size_t i = 0; i < n && !found; i++)
		if (!strcmp(v[i].what, stream))
			*l = v[i], found = 1;
	cJSON_Delete(res);
	return found;
}

cJSON *job_result_logs(const char *id, const char *stream, uint64_t offset, uint64_t limit,
		   char *err, size_t errlen)
{
	int fd = job_file(id, "job.jsonl");
	if (fd < 0) {
		job_not_found(id, err, errlen);
		return NULL;
	}
	close(fd);
	struct piece p;
	size_t room = cfg.max_chars > 4000 ? (cfg.max_chars - 4000) / 2 : 1000;
	if (limit > room)
		limit = room;
	fd = job_file(id, stream);
	struct stat st;
	uint64_t size = fd >= 0 && fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0;
	size_t all = 0, got;
	/* One byte past the page, to see whether the page would end inside a
	 * character: then it ends before it. */
	char *raw = fd >= 0 && offset < size ?
		job_read_at(fd, offset, (size_t)(size - offset < limit + 1 ? size - offset : limit + 1),
			&all) : xstrdup("");
	if (fd >= 0)
		close(fd);
	got = all > limit ? (size_t)limit : all;
	while (got > 0 && got < all && ((unsigned char)raw[got] & 0xc0) == 0x80)
		got--;
	memset(&p, 0, sizeof p);
	char *t = text_clean(raw, got, &p.replaced);
	free(raw);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "job_id", id);
	cJSON_AddStringToObject(o, "stream", stream);
	cJSON_AddNumberToObject(o, "offset", (double)offset);
	cJSON_AddStringToObject(o, "text", t);
	cJSON_AddNumberToObject(o, "next_offset", (double)(offset + got));
	cJSON_AddNumberToObject(o, "total_bytes", (double)size);
	cJSON_AddBoolToObject(o, "eof", offset + got >= size);
	cJSON_AddBoolToObject(o, "invalid_utf8", p.replaced);
	struct sq_loss l;
	if (stream_lost(id, stream, fd >= 0 ? (long long)size : -1, &l)) {
		cJSON_AddNumberToObject(o, "lost_bytes", l.bytes > 0 ? (double)l.bytes : 0);
		cJSON_AddStringToObject(o, "lost", l.text);
	}
	free(t);
	return o;
}

/* The files the run made, for the text block. */
static void made_note(struct text_buf *b, const cJSON *res)
{
	const cJSON *files = cJSON_GetObjectItem(res, "files"), *f;
	double more = num(res, "files_not_listed", 0), gone = num(res, "files_deleted", 0);
	char line[600];
	if (!cJSON_IsArray(files) || (!cJSON_GetArraySize(files) && !gone))
		return;
	text_put(b, "--- files this run created or changed in /workspace ---\n", 56);
	cJSON_ArrayForEach(f, files) {
		snprintf(line, sizeof line, "%.400s (%.0f bytes, %s)\n", str(f, "path"),
			 num(f, "size", 0), str(f, "change"));
		text_put(b, line, strlen(line));
	}
	if (more)
		text_put(b, line, (size_t)snprintf(line, sizeof line, "[... and %.0f more: "
			 "list_files shows them ...]\n", more));
	if (gone)
		text_put(b, line, (size_t)snprintf(line, sizeof line, "(%.0f file%s deleted)\n",
						   gone, gone == 1 ? "" : "s"));
	if (cJSON_IsTrue(cJSON_GetObjectItem(res, "files_cut")))
		text_put(b, line, (size_t)snprintf(line, sizeof line, "(the workspace holds more "
			 "files than are compared: this list may miss some)\n"));
}

/* The text block: the same as structuredContent, for a person. */
char *job_result_text(const cJSON *res)
{
	struct text_buf b = {0};
	char line[600];
	const char *status = str(res, "status"), *sig = str(res, "signal");
	const cJSON *ec = cJSON_GetObjectItem(res, "exit_code");
	int n = snprintf(line, sizeof line, "job %s: %s", str(res, "job_id"), status);
	if (cJSON_IsNumber(ec))
		n += snprintf(line + n, sizeof line - (size_t)n, ", exit code %d", ec->valueint);
	if (sig)
		n += snprintf(line + n, sizeof line - (size_t)n, ", signal %s", sig);
	if (str(res, "limit_hit"))
		n += snprintf(line + n, sizeof line - (size_t)n, ", stopped by the %s limit",
			      str(res, "limit_hit"));
	if (cJSON_IsNumber(cJSON_GetObjectItem(res, "wall_ms")))
		n += snprintf(line + n, sizeof line - (size_t)n, " (%.0f ms, cpu %.0f ms)",
			      num(res, "wall_ms", 0), num(res, "cpu_ms", 0));
	if (str(res, "workspace_id"))
		n += snprintf(line + n, sizeof line - (size_t)n, "; workspace %s",
			      str(res, "workspace_id"));
	text_put(&b, line, strlen(line));
	text_put(&b, "\n", 1);
	if (str(res, "queued_note")) {
		text_put(&b, str(res, "queued_note"), strlen(str(res, "queued_note")));
		text_put(&b, "\n", 1);
	}
	static const char *const streams[] = { "stdout", "stderr" };
	for (size_t i = 0; i < 2; i++) {
		const char *t = str(res, streams[i]);
		if (!t || !*t)
			continue;
		snprintf(line, sizeof line, "--- %s ---\n", streams[i]);
		text_put(&b, line, strlen(line));
		text_put(&b, t, strlen(t));
		if (t[strlen(t) - 1] != '\n')
			text_put(&b, "\n", 1);
	}
	char *images = images_note(res);
	if (images)
		text_put(&b, images, strlen(images));
	free(images);
	made_note(&b, res);
	if (str(res, "lost")) {
		text_put(&b, "not kept: ", 10);
		text_put(&b, str(res, "lost"), strlen(str(res, "lost")));
		text_put(&b, "\n", 1);
	}
	if (str(res, "error")) {
		snprintf(line, sizeof line, "error: %.500s\n", str(res, "error"));
		text_put(&b, line, strlen(line));
	}
	static const char *const notes[] = { "hint", "network_note" };
	for (size_t i = 0; i < 2; i++)
		if (str(res, notes[i])) {
			text_put(&b, str(res, notes[i]), strlen(str(res, notes[i])));
			text_put(&b, "\n", 1);
		}
	return b.p;
}
