/* sr-exec - set no_new_privs, apply Landlock and a seccomp filter, then
 * exec the rest of the command line.
 *
 *   parse -> build the filter -> no_new_privs -> Landlock -> seccomp -> exec
 *
 * Everything that can fail is done before the filter is loaded, so the
 * filter only has to allow the final execve. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "exec.h"
#include "sr.h"

extern char **environ;


/* strict allows exactly one execve: of this path, at this address. */
static const char *strict_exec_path(char *prog)
{
	if (!prog)                              /* --print: any address will do */
		return sx_exec_path_copy("/");
	char *path = sr_find_program(prog);
	if (!path)
		sr_fatal_run(prog);
	const char *copy = sx_exec_path_copy(path);
	free(path);
	return copy;
}

static const char *build_policy(const struct sx_opts *o, struct sx_policy *p)
{
	const char *exec_path = NULL;
	if (strcmp(o->profile, "default") == 0) {
		sx_profile_default(p, o->net);
	} else if (strcmp(o->profile, "strict") == 0) {
		exec_path = strict_exec_path(o->argv[0]);
		sx_profile_strict(p, exec_path);
	} else {
		sx_profile_oci(p, o->profile, o->verbose);
	}
	sx_apply_adjust(p, o->adj, o->nadj);
	if (o->log)
		sx_apply_log(p);
	return exec_path;
}

static void report_policy(const struct sx_opts *o, const struct sx_policy *p,
			  const struct sx_bpf *b, uint64_t ns)
{
	char def[32];
	if (!o->bpf && !p->name) {
		sr_note("seccomp: profile default%s: %zu BPF instructions compiled at build time, "
		    "unlisted syscalls ENOSYS, other ABIs KILL_PROCESS; ready in %.3f ms",
		    o->net ? " with --net" : "", b->len, ns / 1e6);
		return;
	}
	if (o->bpf) {
		sr_note("seccomp: raw BPF from %s: %zu instructions, read in %.3f ms", o->bpf,
		    b->len, ns / 1e6);
		return;
	}
	sr_note("seccomp: profile %s%s%s: %zu rules, %zu BPF instructions, unlisted syscalls %s, "
	    "other ABIs KILL_PROCESS; built in %.3f ms", p->name, o->net ? " with --net" : "",
	    o->log ? " (--log: refusals logged, not enforced)" : "", p->n, b->len,
	    sx_action_str(p->def_action, def, sizeof def), ns / 1e6);
}

/* The filter to load: read from --bpf, or built and compiled. --print
 * and --save-bpf end here. Returns strict's exec path (else NULL). */
static const char *prepare(const struct sx_opts *o, struct sx_policy *pol, struct sx_bpf *bpf)
{
	if (o->bpf) {
		sx_bpf_read(o->bpf, bpf);
		return NULL;
	}
	if (strcmp(o->profile, "default") == 0 && !o->nadj && !o->log && !o->print &&
	    !o->save_bpf && sx_builtin(o->net, bpf) == 0)
		return NULL;
	const char *exec_path = build_policy(o, pol);
	if (o->print) {
		sx_print(pol);
		if (!o->save_bpf)
			exit(SR_EXIT_OK);
	}
	sx_compile(pol, bpf);
	if (o->save_bpf) {
		sx_bpf_save(o->save_bpf, bpf);
		exit(SR_EXIT_OK);
	}
	return exec_path;
}

/* --report-fd: what, as a line. */
static void say(const struct sx_opts *o, const char *what)
{
	if (o->report_fd >= 0)
		(void)dprintf(o->report_fd, "%s\n", what);
}

static void load(const struct sx_opts *o, const struct sx_policy *pol,
		 const struct sx_bpf *bpf, int builtin)
{
	uint64_t t0 = sr_now_ns();
	int err = sx_load(bpf, pol->load_flags);
	uint64_t t1 = sr_now_ns();
	if (err)
		say(o, "exec failed");
	if (err == EINVAL && o->bpf)
		sr_fatal(SR_EXIT_USAGE, "%s: the kernel refused this filter: %s", o->bpf, strerror(err));
	if (err) {
		errno = err;
		sr_fatal_sys(SR_EXIT_SYS, "unable to load the seccomp filter");
	}
	/* A profile file may forbid write(2); the built-in ones do not. */
	if (o->verbose && builtin)
		sr_note("seccomp: loaded in %.3f ms", (t1 - t0) / 1e6);
}

int main(int argc, char **argv)
{
	struct sx_opts o;
	struct sx_policy pol;
	struct sx_bpf bpf = {NULL, 0};

	sr_set_prog(argv[0]);
	sx_parse_opts(argc, argv, &o);
	memset(&pol, 0, sizeof pol);

	uint64_t t0 = sr_now_ns();
	const char *exec_path = prepare(&o, &pol, &bpf);
	uint64_t built = sr_now_ns() - t0;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to set no_new_privs");
	const char *ll = sx_landlock(&o);
	if (o.verbose) {
		report_policy(&o, &pol, &bpf, built);
		sr_note("landlock: %s", ll);
		sr_note("no_new_privs: set");
	}
	/* --report-fd: "exec", then "exec failed" unless the exec succeeds,
	 * which closes it: the program never has it. Under a filter that
	 * refuses write(2) (strict) the second line cannot be written. */
	if (o.report_fd >= 0 && fcntl(o.report_fd, F_SETFD, FD_CLOEXEC) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to set fd %d close-on-exec", o.report_fd);
	say(&o, "exec");
	load(&o, &pol, &bpf, !o.bpf && (exec_path || strcmp(o.profile, "default") == 0));
	free(o.bpf ? bpf.insns : NULL);

	if (exec_path)
		execve(exec_path, o.argv, environ);
	else
		sr_execvp(o.argv, sr_sh_argv(o.argv));
	int e = errno;
	say(&o, "exec failed");
	errno = e;
	sr_fatal_run(o.argv[0]);
}
