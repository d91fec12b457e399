/* keeper.c - the supervisor of one job.
 *
 * The worker forks a keeper per job. The keeper inherits the job
 * directory's fd, so the job's flock stays held for as long as the keeper
 * lives, and it is a child subreaper, so every process the job leaves
 * behind becomes its child. It starts the job in a new session, copies its
 * stdout and stderr into capped files, and when the job's main process
 * ends, when the worker asks (SIGTERM: cancel), or when the worker dies
 * (PDEATHSIG: SIGTERM), it kills the job's process group and then every
 * remaining descendant before it lets go of the lock. When the job's
 * --timeout expires, it sends SIGTERM to the job's process group first,
 * and kills everything --kill-after later, as sr-limit --timeout does.
 * It reports to the worker through a pipe.
 *
 * With --via, the keeper's child is the launcher (srun ...), whose last
 * words are `sr-queue land SPOOL ID`: on the node, land.c runs the job
 * with this same code (the job's stdin from its file, its output to the
 * launcher's, its stats fd to a file in its directory), and the keeper
 * reads how it ended from that directory once the launcher has ended. */
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sr.h"
#include "spool.h"
#include "worker.h"

extern char **environ;

struct jobspec {
	cJSON *json;
	char **argv, **envp;
	const char *cwd;
	uint64_t max_output, timeout_ms, kill_after_ms;
	int has_stdin;
	mode_t umask;
};

/* Where the keeper's code runs: here, for the launcher of --via, or on
 * the node (land). */
enum mode { M_LOCAL, M_VIA, M_LAND };

struct pump {
	int in, file, err, jobfd;
	const char *name;       /* the file, created at the first byte stored */
	char *mem;              /* or the bytes are kept here (stats) */
	uint64_t stored, total, cap;
};

static char **str_array(const cJSON *arr, size_t extra)
{
	size_t n = (size_t)cJSON_GetArraySize(arr), i = 0;
	char **v = calloc(n + extra + 1, sizeof *v);
	if (!v)
		return NULL;
	const cJSON *e;
	cJSON_ArrayForEach(e, arr) {
		if (!cJSON_IsString(e)) {
			free(v);
			return NULL;
		}
		v[i++] = e->valuestring;
	}
	return v;
}

/* The job's environment plus SR_STATS_FD and SR_QUEUE_ID (replacing any
 * the submitter gave). */
static int job_environ(struct jobspec *j, const cJSON *env, const char *id)
{
	static char stats[] = "SR_STATS_FD=3";
	static char idvar[sizeof "SR_QUEUE_ID=" + SQ_ID_LEN];
	char **v = str_array(env, 2);
	if (!v)
		return -1;
	size_t n = 0;
	for (size_t i = 0; v[i]; i++)
		if (strncmp(v[i], "SR_STATS_FD=", 12) != 0 &&
		    strncmp(v[i], "SR_QUEUE_ID=", 12) != 0)
			v[n++] = v[i];
	snprintf(idvar, sizeof idvar, "SR_QUEUE_ID=%s", id);
	v[n++] = stats;
	v[n++] = idvar;
	v[n] = NULL;
	j->envp = v;
	return 0;
}

static void jobspec_free(struct jobspec *j)
{
	free(j->argv);
	free(j->envp);
	cJSON_Delete(j->json);
	memset(j, 0, sizeof *j);
}

static int load_job(int jobfd, const char *id, struct jobspec *j)
{
	memset(j, 0, sizeof *j);
	if (sq_job_read_at(jobfd, SQ_JOB_FILE, &j->json, NULL) < 0 || !j->json)
		return -1;
	const cJSON *argv = cJSON_GetObjectItemCaseSensitive(j->json, "argv");
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(j->json, "env");
	j->cwd = sq_json_str(j->json, "cwd");
	j->argv = cJSON_IsArray(argv) ? str_array(argv, 0) : NULL;
	if (!j->argv || !j->argv[0] || !j->cwd || !cJSON_IsArray(env) ||
	    job_environ(j, env, id) < 0) {
		errno = EINVAL;
		return -1;
	}
	j->max_output = (uint64_t)sq_json_num(j->json, "max_output",
					      (long long)SQ_DEFAULT_MAX_OUTPUT);
	j->timeout_ms = (uint64_t)sq_json_num(j->json, "timeout_ms", 0);
	j->kill_after_ms = (uint64_t)sq_json_num(j->json, "kill_after_ms",
						  SQ_DEFAULT_KILL_AFTER_MS);
	j->has_stdin = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j->json, "stdin"));
	j->umask = (mode_t)sq_json_num(j->json, "umask", 022) & 0777;
	return 0;
}

struct child_err {
	int32_t stage, err;
};

static void child_fail(int errw, int stage)
{
	struct child_err ce = { stage, errno };
	(void)!write(errw, &ce, sizeof ce);
	_exit(127);
}

/* In the job's process: new session, die with the keeper, default
 * signals, fds 0-3, the job's umask, cwd and environment, exec. */
static void job_child(const struct jobspec *j, const int fds[4], int errw, pid_t keeper,
		      int deathsig)
{
	int hi[4];
	sigset_t none;
	errw = fcntl(errw, F_DUPFD_CLOEXEC, 10); /* clear of fds 0-3 */
	if (setsid() < 0 || prctl(PR_SET_PDEATHSIG, deathsig) < 0)
		child_fail(errw, SQ_FS_SETUP);
	if (getppid() != keeper)
		_exit(127);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			(void)signal(s, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	umask(j->umask);
	/* The working directory may lie under a workspace an earlier job
	 * wrote: no link on its path is followed. */
	int cwd = sr_open_nofollow(j->cwd, O_PATH | O_DIRECTORY);
	if (cwd < 0 || fchdir(cwd) < 0)
		child_fail(errw, SQ_FS_CWD);
	close(cwd);
	for (int i = 0; i < 4; i++)
		if (fds[i] >= 0 && (hi[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 10)) < 0)
			child_fail(errw, SQ_FS_SETUP);
	for (int i = 0; i < 4; i++)
		if (fds[i] >= 0 && dup2(hi[i], i) < 0)
			child_fail(errw, SQ_FS_SETUP);
	environ = j->envp;
	execvp(j->argv[0], j->argv);
	child_fail(errw, SQ_FS_EXEC);
}

/* Kill and reap every remaining descendant (they all end up our children). */
static void reap_rest(void)
{
	for (;;) {
		pid_t p = waitpid(-1, NULL, WNOHANG);
		if (p > 0)
			continue;
		if (p < 0 && errno != EINTR)
			return; /* ECHILD: nothing left */
		sr_kill_descendants(NULL, 0);
		p = waitpid(-1, NULL, 0);
		if (p < 0 && errno == ECHILD)
			return;
	}
}

/* Reap dead orphans; 1 once the main process has exited (left a zombie,
 * so that its pid still names its process group). */
static int main_exited(pid_t main)
{
	for (;;) {
		siginfo_t si;
		memset(&si, 0, sizeof si);
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == 0)
			return 0;
		if (si.si_pid == main)
			return 1;
		(void)waitpid(si.si_pid, NULL, 0);
	}
}

static void store(struct pump *p, const char *buf, size_t len)
{
	if (p->mem) {
		memcpy(p->mem + p->stored, buf, len);
		p->stored += len;
		return;
	}
	if (p->file < 0 && !p->err) {
		p->file = openat(p->jobfd, p->name,
				 O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (p->file < 0)
			p->err = errno;
	}
	/* Bytes a write took before it failed are stored: counted, so that
	 * the record's count is the file's size. */
	while (!p->err && len) {
		ssize_t n = write(p->file, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			p->err = errno;
			return;
		}
		p->stored += (uint64_t)n;
		buf += n;
		len -= (size_t)n;
	}
}

/* Copy what is in the pipe to the sink, up to the cap; count the rest. */
static void pump(struct pump *p)
{
	char buf[65536];
	ssize_t n = read(p->in, buf, sizeof buf);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(p->in);
		p->in = -1;
		return;
	}
	p->total += (uint64_t)n;
	uint64_t room = p->cap - p->stored;
	size_t w = (uint64_t)n < room ? (size_t)n : (size_t)room;
	if (w)
		store(p, buf, w);
}

static int pump_pipe(struct pump *p, int *child_end)
{
	int fd[2];
	if (pipe2(fd, O_CLOEXEC) < 0)
		return -1;
	(void)fcntl(fd[0], F_SETFL, O_NONBLOCK);
	p->in = fd[0];
	*child_end = fd[1];
	return 0;
}

struct run {
	enum mode mode;
	struct jobspec job;
	struct pump out, err, stats;
	char statsbuf[SQ_STATS_MAX];
	int sfd, fds[4];
	pid_t pid;
	uint64_t t0;
	uint64_t deadline;      /* the wall clock's next step (0: none) */
	int termed;             /* --via: the launcher was sent SIGTERM */
};

/* On the node: the job's output is the launcher's, its stats fd a file. */
static int prepare_land(struct run *r, int jobfd, struct sq_report *rep)
{
	r->fds[1] = fcntl(1, F_DUPFD_CLOEXEC, 4);
	r->fds[2] = fcntl(2, F_DUPFD_CLOEXEC, 4);
	r->fds[3] = openat(jobfd, SQ_STATS_FILE,
			   O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (r->fds[1] < 0 || r->fds[2] < 0 || r->fds[3] < 0)
		return rep->stage = SQ_FS_FILES, rep->err = errno, -1;
	return 0;
}

/* stdin and three pipes: fds[] = stdin, stdout, stderr, stats (none for
 * a launcher). Output files are only created when there is output to keep. */
static int prepare(struct run *r, int jobfd, struct sq_report *rep)
{
	r->fds[0] = r->job.has_stdin ? openat(jobfd, "stdin", O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
				     : open("/dev/null", O_RDONLY | O_CLOEXEC);
	r->fds[1] = r->fds[2] = r->fds[3] = -1;
	if (r->fds[0] < 0)
		return rep->stage = SQ_FS_STDIN, rep->err = errno, -1;
	if (r->mode == M_LAND)
		return prepare_land(r, jobfd, rep);
	r->out = (struct pump){ .file = -1, .jobfd = jobfd, .name = "stdout",
				.cap = r->job.max_output };
	r->err = (struct pump){ .file = -1, .jobfd = jobfd, .name = "stderr",
				.cap = r->job.max_output };
	r->stats = (struct pump){ .file = -1, .mem = r->statsbuf, .cap = SQ_STATS_MAX };
	if (pump_pipe(&r->out, &r->fds[1]) < 0 || pump_pipe(&r->err, &r->fds[2]) < 0 ||
	    (r->mode == M_LOCAL && pump_pipe(&r->stats, &r->fds[3]) < 0))
		return rep->stage = SQ_FS_FILES, rep->err = errno, -1;
	return 0;
}

static int spawn(struct run *r, struct sq_report *rep)
{
	int ep[2];
	struct child_err ce;
	if (pipe2(ep, O_CLOEXEC) < 0)
		return rep->stage = SQ_FS_SETUP, rep->err = errno, -1;
	pid_t keeper = getpid();
	r->t0 = sr_now_ns();
	rep->started_ms = sq_now_ms();
	r->pid = fork();
	if (r->pid < 0)
		return rep->stage = SQ_FS_SETUP, rep->err = errno, -1;
	if (r->pid == 0)
		job_child(&r->job, r->fds, ep[1], keeper, r->mode == M_VIA ? SIGTERM : SIGKILL);
	close(ep[1]);
	for (int i = 0; i < 4; i++)
		if (r->fds[i] >= 0)
			close(r->fds[i]);
	ssize_t n;
	do
		n = read(ep[0], &ce, sizeof ce);
	while (n < 0 && errno == EINTR);
	close(ep[0]);
	if (n == (ssize_t)sizeof ce) {
		(void)waitpid(r->pid, NULL, 0);
		return rep->stage = ce.stage, rep->err = ce.err, -1;
	}
	if (r->job.timeout_ms)
		r->deadline = r->t0 + r->job.timeout_ms * 1000000ULL;
	return 0;
}

/* SIGKILL to the job's process group and to every descendant. A launcher
 * gets SIGTERM first, and time to stop its step on the node. */
static void kill_job(struct run *r)
{
	if (r->mode == M_VIA && !r->termed) {
		r->termed = 1;
		(void)kill(-r->pid, SIGTERM);
		r->deadline = sr_now_ns() + VIA_GRACE_MS * 1000000ULL;
		return;
	}
	(void)kill(-r->pid, SIGKILL);
	sr_kill_descendants(NULL, 0);
	r->deadline = 0;
}

/* ms until the wall clock's next step, for poll (-1: none). */
static int poll_timeout(const struct run *r)
{
	if (!r->deadline)
		return -1;
	uint64_t now = sr_now_ns();
	if (now >= r->deadline)
		return 0;
	uint64_t ms = (r->deadline - now + 999999) / 1000000ULL;
	return ms < INT_MAX ? (int)ms : INT_MAX;
}

/* The job's --timeout ran out: SIGTERM to its process group, and once
 * --kill-after has passed too, SIGKILL to all its processes. */
static void on_deadline(struct run *r, struct sq_report *rep)
{
	if (rep->killed != SQ_KILLED_NO) {
		kill_job(r);
		return;
	}
	rep->killed = SQ_KILLED_TIMEOUT;
	if (kill(-r->pid, SIGTERM) < 0)
		(void)kill(r->pid, SIGTERM);
	r->deadline = sr_now_ns() + r->job.kill_after_ms * 1000000ULL;
}

/* SIGTERM: the worker cancels, stops or died (on a node: the step is
 * cancelled, SIGINT and SIGHUP too): kill the job now (even in a timeout's
 * grace period). SIGCHLD: see if the job ended. */
static int on_signals(struct run *r, struct sq_report *rep)
{
	struct signalfd_siginfo si;
	while (read(r->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
		if (si.ssi_signo == SIGCHLD)
			continue;
		if (rep->killed == SQ_KILLED_NO)
			rep->killed = SQ_KILLED_ASKED;
		else if (!r->deadline)
			continue; /* killed already */
		kill_job(r);
	}
	return main_exited(r->pid);
}

/* After the job: read what is left, but never wait long for a writer that
 * escaped (a pipe end passed to a process outside the job). */
static void drain(struct pump *p)
{
	while (p->in >= 0) {
		struct pollfd pf = { p->in, POLLIN, 0 };
		if (poll(&pf, 1, 1000) <= 0) {
			close(p->in);
			p->in = -1;
			return;
		}
		pump(p);
	}
}

static void supervise(struct run *r, struct sq_report *rep)
{
	int ended = 0;
	while (!ended) {
		struct pollfd pf[4] = {
			{ r->sfd, POLLIN, 0 }, { r->out.in, POLLIN, 0 }, { r->err.in, POLLIN, 0 },
			{ r->stats.in, POLLIN, 0 },
		};
		int n = poll(pf, 4, poll_timeout(r));
		if (r->deadline && sr_now_ns() >= r->deadline)
			on_deadline(r, rep);
		if (pf[1].revents)
			pump(&r->out);
		if (pf[2].revents)
			pump(&r->err);
		if (pf[3].revents)
			pump(&r->stats);
		if (pf[0].revents || n == 0)
			ended = on_signals(r, rep);
	}
	int status = 0;
	(void)kill(-r->pid, SIGKILL); /* whatever is left of its group */
	(void)waitpid(r->pid, &status, 0);
	rep->status = status;
	rep->wall_ns = sr_now_ns() - r->t0;
	reap_rest();
	drain(&r->out);
	drain(&r->err);
	drain(&r->stats);
}

static void finish_report(struct run *r, struct sq_report *rep)
{
	struct rusage ru;
	rep->finished_ms = sq_now_ms();
	if (getrusage(RUSAGE_CHILDREN, &ru) == 0) {
		rep->user_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000ULL +
			       (uint64_t)ru.ru_utime.tv_usec * 1000ULL;
		rep->sys_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000ULL +
			      (uint64_t)ru.ru_stime.tv_usec * 1000ULL;
	}
	if (r->out.file >= 0 && fsync(r->out.file) < 0 && !r->out.err)
		r->out.err = errno;
	if (r->err.file >= 0 && fsync(r->err.file) < 0 && !r->err.err)
		r->err.err = errno;
	rep->out_stored = r->out.stored;
	rep->out_total = r->out.total;
	rep->err_stored = r->err.stored;
	rep->err_total = r->err.total;
	rep->out_err = r->out.err;
	rep->err_err = r->err.err;
	rep->stats_len = (uint32_t)r->stats.stored;
	rep->stats_total = r->stats.total;
}

/* Close every fd from 3 up but the n in keep (-1s ignored). */
static void close_others(const int *keep, int n)
{
	unsigned from = 3;
	for (;;) {
		int next = -1;       /* the lowest kept fd at or over from */
		for (int i = 0; i < n; i++)
			if (keep[i] >= (int)from && (next < 0 || keep[i] < next))
				next = keep[i];
		if (next < 0)
			break;
		if ((unsigned)next > from)
			(void)close_range(from, (unsigned)next - 1, 0);
		from = (unsigned)next + 1;
	}
	(void)close_range(from, ~0U, 0);
}

/* The worker's go: a byte, once run/ is fsynced and the claim will
 * survive a crash. End of file instead means the worker died before: the
 * job must not start (it is found in run/ and settled as lost). */
static int await_go(int fd)
{
	char c;
	ssize_t n;
	do
		n = read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	return n == 1;
}

/* Signals come through r->sfd: SIGCHLD, SIGTERM, and on a node SIGINT and
 * SIGHUP (a launcher passes those on). */
static int take_signals(struct run *r, int land)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	if (land) {
		sigaddset(&set, SIGINT);
		sigaddset(&set, SIGHUP);
	}
	sigprocmask(SIG_BLOCK, &set, NULL);
	r->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return r->sfd;
}

static void run_init(struct run *r, struct sq_report *rep, enum mode mode)
{
	memset(rep, 0, sizeof *rep);
	memset(r, 0, sizeof *r);
	r->mode = mode;
	r->out.in = r->err.in = r->stats.in = -1;
	r->out.file = r->err.file = -1;
}

/* The launcher in the job's place: its argv ends in "EXE land SPOOL ID";
 * it gets the worker's environment (its own settings, such as SLURM_*),
 * no stdin, and / as its working directory (srun makes it the step's:
 * land leaves it for the job's). The wall clock runs on the node. */
static void via_job(struct jobspec *j, const struct sq_via *via, const char *id)
{
	via->argv[via->n] = via->exe;
	via->argv[via->n + 1] = "land";
	via->argv[via->n + 2] = via->spool;
	via->argv[via->n + 3] = (char *)id;
	via->argv[via->n + 4] = NULL;
	free(j->argv);          /* the job's own, which the node reads itself */
	j->argv = via->argv;
	j->envp = environ;
	j->cwd = "/";
	j->has_stdin = 0;
	j->timeout_ms = 0;
}

/* Load, start and supervise the job (or its launcher); rep says how it went. */
static void run_job(struct run *r, int jobfd, int gofd, const char *id,
		    const struct sq_via *via, struct sq_report *rep)
{
	if (r->sfd < 0) {
		rep->stage = SQ_FS_SETUP;
		rep->err = errno;
	} else if (load_job(jobfd, id, &r->job) < 0) {
		rep->stage = SQ_FS_JOB;
		rep->err = errno;
	} else {
		if (via) {
			via_job(&r->job, via, id);
			sq_via_forget(jobfd);
		}
		int ready = prepare(r, jobfd, rep) == 0;
		if (gofd >= 0 && !await_go(gofd))
			_exit(0);       /* nobody to report to */
		if (ready && spawn(r, rep) == 0)
			supervise(r, rep);
	}
	if (!rep->started_ms)
		rep->started_ms = sq_now_ms();
	finish_report(r, rep);
}

/* On the node (`sr-queue land`): run the job as a keeper does, and say
 * how it ended in rep. A job killed by a signal while the node was asked
 * to stop it (scancel signals the job's processes and this one) counts
 * as stopped by that request. */
void sq_land_job(int jobfd, const char *id, struct sq_report *rep)
{
	struct run r;
	struct signalfd_siginfo si;
	run_init(&r, rep, M_LAND);
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
	(void)take_signals(&r, 1);
	run_job(&r, jobfd, -1, id, NULL, rep);
	/* scancel signals the job's processes and this one at about the same
	 * time: a job dead of such a signal may have gone before ours came */
	int sig = WIFSIGNALED(rep->status) ? WTERMSIG(rep->status) : 0;
	if (r.sfd >= 0 && rep->killed == SQ_KILLED_NO &&
	    (sig == SIGTERM || sig == SIGINT || sig == SIGHUP)) {
		struct pollfd pf = { r.sfd, POLLIN, 0 };
		(void)poll(&pf, 1, 500);
	}
	while (r.sfd >= 0 && read(r.sfd, &si, sizeof si) == (ssize_t)sizeof si)
		if (si.ssi_signo != SIGCHLD && rep->killed == SQ_KILLED_NO &&
		    WIFSIGNALED(rep->status))
			rep->killed = SQ_KILLED_ASKED;
	jobspec_free(&r.job);
}

static void keeper_main(int jobfd, int repfd, int gofd, const char *id, pid_t worker,
			const struct sq_via *via)
{
	struct sq_report rep;
	struct run r;
	run_init(&r, &rep, via ? M_VIA : M_LOCAL);
	close_others((int[]){ jobfd, repfd, gofd }, 3);
	(void)setpgid(0, 0); /* a terminal's ^C is for the worker, not us */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != worker)
		_exit(0);
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
	(void)take_signals(&r, 0);
	run_job(&r, jobfd, gofd, id, via, &rep);
	if (via) {
		size_t n = 0;
		sq_via_collect(jobfd, rep.status, &rep, r.statsbuf, &n);
		rep.stats_len = (uint32_t)n;
	}
	/* The worker may be gone (EPIPE): nobody to tell then. */
	if (sr_write_all(repfd, &rep, sizeof rep) == 0)
		(void)sr_write_all(repfd, r.statsbuf, rep.stats_len);
	_exit(0);
}

/* Fork the keeper of a job; *repfd gets the read end of its report pipe.
 * With gofd (not -1), the keeper readies the job and starts it only when
 * it reads a byte there (see sq_spawn_claimed). */
pid_t sq_keeper_start(int jobfd, const char *id, const struct sq_via *via, int gofd,
		      int *repfd)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	pid_t worker = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		(void)fcntl(p[1], F_SETFL, 0);
		keeper_main(jobfd, p[1], gofd, id, worker, via);
	}
	close(p[1]);
	*repfd = p[0];
	return pid;
}
