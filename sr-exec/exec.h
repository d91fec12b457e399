/* exec.h - sr-exec: no_new_privs, Landlock, seccomp, then exec. */
#ifndef SR_EXEC_H
#define SR_EXEC_H

#include <seccomp.h>
#include <stddef.h>
#include <stdint.h>

/* One seccomp rule before it reaches libseccomp: the profiles build a
 * list of these, the command line edits it, filter.c compiles it. */
struct sx_rule {
	int nr;                    /* native syscall number (< 0: not on this arch) */
	uint32_t action;           /* SCMP_ACT_* */
	unsigned ncmp;
	struct scmp_arg_cmp cmp[6];
	int entry;                 /* its syscalls[] index in a profile file, or -1 */
};

struct sx_policy {
	const char *name;          /* "default", "strict" or the profile file */
	uint32_t def_action;       /* for syscalls no rule matches */
	struct sx_rule *v;
	size_t n, cap;
	unsigned load_flags;       /* SECCOMP_FILTER_FLAG_* from a profile */
};

enum sx_landlock_mode { SX_LL_AUTO, SX_LL_OFF, SX_LL_REQUIRE };
enum sx_path_kind { SX_RO, SX_RX, SX_RW };

struct sx_path {
	const char *path;
	enum sx_path_kind kind;
};

struct sx_adjust {             /* --allow NAME, --deny NAME[:ERRNO] */
	const char *name;
	int allow;
	int err;
};

struct sx_opts {
	const char *profile;       /* default, strict or FILE */
	int net, log, print, verbose;
	const char *save_bpf, *bpf;
	struct sx_adjust *adj;
	size_t nadj;
	enum sx_landlock_mode landlock;
	struct sx_path *paths;
	size_t npaths;
	char **argv;               /* the program and its arguments */
	int report_fd;             /* --report-fd, or -1 */
};

/* opts.c */
void sx_parse_opts(int argc, char **argv, struct sx_opts *o);

/* rules.c: the policy as a list of rules. */
void sx_add(struct sx_policy *p, int nr, uint32_t action, unsigned ncmp,
	    const struct scmp_arg_cmp *cmp, int entry);
void sx_add_name(struct sx_policy *p, const char *name, uint32_t action);
void sx_add_names(struct sx_policy *p, const char *const *names, uint32_t action);
void sx_add_cmp(struct sx_policy *p, const char *name, uint32_t action,
		struct scmp_arg_cmp c);
void sx_drop(struct sx_policy *p, int nr);
/* Rules for one 32-bit argument (compared on its low 32 bits, as the
 * kernel truncates int arguments): cases[i].value gets cases[i].action,
 * every other value gets `others`. A case whose action is 0 gets no rule:
 * the caller adds its own. Each rule also carries `extra` when not NULL. */
struct sx_case {
	uint32_t value;
	uint32_t action;
};
void sx_split(struct sx_policy *p, int nr, unsigned arg, const struct sx_case *cases,
	      size_t n, uint32_t others, const struct scmp_arg_cmp *extra);
/* The same for a few small values in ascending order, compared on all 64
 * bits (fewer rules; garbage in the high half gets `others`). */
void sx_values(struct sx_policy *p, int nr, unsigned arg, const struct sx_case *cases,
	       size_t n, uint32_t others, const struct scmp_arg_cmp *extra);
/* Native syscall number for NAME; also knows syscalls newer than
 * libseccomp. Returns __NR_SCMP_ERROR for a name nobody knows. */
int sx_syscall_nr(const char *name);
/* Name of syscall number nr (for messages); never NULL. */
const char *sx_syscall_name(int nr);
/* errno by name (EPERM) or number (1..4095); -1 when invalid. */
int sx_errno_parse(const char *s);
void sx_apply_adjust(struct sx_policy *p, const struct sx_adjust *a, size_t n);
void sx_apply_log(struct sx_policy *p);
/* "ERRNO(38)", "ALLOW", ... into buf. */
const char *sx_action_str(uint32_t action, char *buf, size_t len);

/* sysnames.c: syscalls this libseccomp may not know. */
int sx_newer_syscall_nr(const char *name);
const char *sx_newer_syscall_name(int nr);

/* profile_default.c */
void sx_profile_default(struct sx_policy *p, int net);
void sx_profile_strict(struct sx_policy *p, const char *exec_path);
/* A copy of path at an unpredictable address, for strict's one execve. */
const char *sx_exec_path_copy(const char *path);

/* oci.c: load an OCI/Docker seccomp JSON profile; exits 100 on a bad one. */
void sx_profile_oci(struct sx_policy *p, const char *file, int verbose);

/* oci_cond.c: the includes/excludes conditions of an OCI rule. */
int sx_native_arch_is(const char *goarch);
int sx_have_cap(const char *capname);           /* effective set */
/* 1 when the running kernel is at least version s ("4.8"), 0 when not,
 * -1 when s is not a version. */
int sx_kernel_at_least(const char *s);

/* filter.c: compile, show, save, load. */
struct sx_bpf {
	void *insns;                 /* struct sock_filter[] */
	size_t len;                  /* number of instructions */
};
void sx_compile(const struct sx_policy *p, struct sx_bpf *out);
void sx_print(const struct sx_policy *p);
/* 0, or the errno of seccomp(2). */
int sx_load(const struct sx_bpf *b, unsigned flags);

/* builtin.c: the default profile, compiled at build time; -1 if absent. */
int sx_builtin(int net, struct sx_bpf *out);

/* bpf.c: raw BPF files. */
void sx_bpf_save(const char *file, const struct sx_bpf *b);
void sx_bpf_read(const char *file, struct sx_bpf *out);

/* landlock.c: returns a one-line summary of what was enforced. */
const char *sx_landlock(const struct sx_opts *o);
int sx_landlock_abi(void);

#endif
