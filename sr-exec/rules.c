/* rules.c - the seccomp policy as a plain list of rules.
 *
 * Profiles append rules, --allow/--deny replace every rule of one syscall,
 * --log turns every refusal into a logged permission; filter.c hands the
 * result to libseccomp. Keeping our own list (rather than adding straight
 * to a libseccomp context) is what lets the command line override a rule:
 * libseccomp silently drops conditional rules once a syscall has an
 * unconditional one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "sr.h"

void sx_add(struct sx_policy *p, int nr, uint32_t action, unsigned ncmp,
	    const struct scmp_arg_cmp *cmp, int entry)
{
	if (nr < 0)         /* a syscall of another architecture: nothing to do */
		return;
	p->v = sr_grow(p->v, p->n, &p->cap, sizeof *p->v);
	struct sx_rule *r = &p->v[p->n++];
	memset(r, 0, sizeof *r);
	r->nr = nr;
	r->action = action;
	r->ncmp = ncmp;
	if (ncmp)
		memcpy(r->cmp, cmp, ncmp * sizeof *cmp);
	r->entry = entry;
}

/* Built-in lists name syscalls that an older libseccomp may not know;
 * those are left to the default action rather than failing. */
void sx_add_name(struct sx_policy *p, const char *name, uint32_t action)
{
	int nr = sx_syscall_nr(name);
	if (nr != __NR_SCMP_ERROR)
		sx_add(p, nr, action, 0, NULL, -1);
}

void sx_add_names(struct sx_policy *p, const char *const *names, uint32_t action)
{
	for (; *names; names++)
		sx_add_name(p, *names, action);
}

void sx_add_cmp(struct sx_policy *p, const char *name, uint32_t action,
		struct scmp_arg_cmp c)
{
	int nr = sx_syscall_nr(name);
	if (nr != __NR_SCMP_ERROR)
		sx_add(p, nr, action, 1, &c, -1);
}

void sx_drop(struct sx_policy *p, int nr)
{
	size_t j = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].nr != nr)
			p->v[j++] = p->v[i];
	p->n = j;
}

/* libseccomp has no "otherwise" for one syscall (a rule without conditions
 * swallows the conditional ones) and allows one comparison per argument in
 * a rule, so "this value, else that" is written as a partition: walk the
 * binary trie of the case values from the top bit down; every subtree
 * holding no case becomes one masked comparison with the `others` action,
 * every leaf that is a case becomes an exact comparison. The rules are
 * disjoint and cover all 2^32 values: at most 32 per case. */
static void split_at(struct sx_policy *p, int nr, unsigned arg, uint32_t mask,
		     uint32_t val, const struct sx_case *cases, size_t n,
		     uint32_t others, const struct scmp_arg_cmp *extra)
{
	const struct sx_case *hit = NULL;
	size_t inside = 0;
	for (size_t i = 0; i < n; i++)
		if ((cases[i].value & mask) == val) {
			inside++;
			hit = &cases[i];
		}
	uint32_t action = others;
	if (inside == 0 || mask == 0xffffffffU) {
		if (inside)
			action = hit->action;
		if (action == 0)
			return;
		struct scmp_arg_cmp c[2] = {SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, mask, val)};
		if (extra)
			c[1] = *extra;
		sx_add(p, nr, action, extra ? 2 : 1, c, -1);
		return;
	}
	uint32_t bit = 0x80000000U >> __builtin_popcount(mask);
	split_at(p, nr, arg, mask | bit, val, cases, n, others, extra);
	split_at(p, nr, arg, mask | bit, val | bit, cases, n, others, extra);
}

void sx_split(struct sx_policy *p, int nr, unsigned arg, const struct sx_case *cases,
	      size_t n, uint32_t others, const struct scmp_arg_cmp *extra)
{
	if (nr >= 0)
		split_at(p, nr, arg, 0, 0, cases, n, others, extra);
}

/* Small sets of small values (socket families, pid 0), compared on all 64
 * bits: "equal to a case" or "below, between, above the cases", each a
 * single comparison. A value with garbage in the high half, which the
 * kernel would truncate, matches no case and gets `others`: refused, the
 * safe side. Gaps between cases are listed value by value, so cases must
 * be close together (at most 64 values in all gaps). */
void sx_values(struct sx_policy *p, int nr, unsigned arg, const struct sx_case *cases,
	       size_t n, uint32_t others, const struct scmp_arg_cmp *extra)
{
	struct scmp_arg_cmp c[2];
	unsigned nc = extra ? 2 : 1;
	if (extra)
		c[1] = *extra;
	if (nr < 0 || n == 0)
		return;
	uint64_t prev = cases[0].value, gaps = 0;
	if (prev > 0) {
		c[0] = SCMP_CMP(arg, SCMP_CMP_LT, prev, 0);
		sx_add(p, nr, others, nc, c, -1);
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t v = cases[i].value;
		if (i > 0 && v <= prev)
			sr_fatal(SR_EXIT_SYS, "internal error: unsorted cases for syscall %d", nr);
		for (uint64_t g = i ? prev + 1 : v; g < v; g++) {
			if (++gaps > 64)
				sr_fatal(SR_EXIT_SYS, "internal error: sparse cases for syscall %d", nr);
			c[0] = SCMP_CMP(arg, SCMP_CMP_EQ, g, 0);
			sx_add(p, nr, others, nc, c, -1);
		}
		if (cases[i].action) {
			c[0] = SCMP_CMP(arg, SCMP_CMP_EQ, v, 0);
			sx_add(p, nr, cases[i].action, nc, c, -1);
		}
		prev = v;
	}
	c[0] = SCMP_CMP(arg, SCMP_CMP_GT, prev, 0);
	sx_add(p, nr, others, nc, c, -1);
}

int sx_syscall_nr(const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);
	if (nr == __NR_SCMP_ERROR)
		nr = sx_newer_syscall_nr(name);
	return nr;
}

const char *sx_syscall_name(int nr)
{
	static char buf[4][64];
	static unsigned slot;
	char *b = buf[slot++ % 4];
	const char *known = sx_newer_syscall_name(nr);
	char *s = known ? NULL : seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
	snprintf(b, sizeof buf[0], "%s", known ? known : s ? s : "?");
	free(s);
	return b;
}

static const struct {
	const char *name;
	int value;
} errnos[] = {
	{"EPERM", EPERM}, {"ENOENT", ENOENT}, {"ESRCH", ESRCH}, {"EINTR", EINTR},
	{"EIO", EIO}, {"ENXIO", ENXIO}, {"E2BIG", E2BIG}, {"ENOEXEC", ENOEXEC},
	{"EBADF", EBADF}, {"ECHILD", ECHILD}, {"EAGAIN", EAGAIN},
	{"ENOMEM", ENOMEM}, {"EACCES", EACCES}, {"EFAULT", EFAULT},
	{"EBUSY", EBUSY}, {"EEXIST", EEXIST}, {"EXDEV", EXDEV},
	{"ENODEV", ENODEV}, {"ENOTDIR", ENOTDIR}, {"EISDIR", EISDIR},
	{"EINVAL", EINVAL}, {"ENFILE", ENFILE}, {"EMFILE", EMFILE},
	{"ENOTTY", ENOTTY}, {"EFBIG", EFBIG}, {"ENOSPC", ENOSPC},
	{"ESPIPE", ESPIPE}, {"EROFS", EROFS}, {"EMLINK", EMLINK},
	{"EPIPE", EPIPE}, {"ERANGE", ERANGE}, {"ENOSYS", ENOSYS},
	{"ENOTSUP", ENOTSUP}, {"EOPNOTSUPP", EOPNOTSUPP},
	{"EAFNOSUPPORT", EAFNOSUPPORT}, {"EPROTONOSUPPORT", EPROTONOSUPPORT},
	{"EADDRNOTAVAIL", EADDRNOTAVAIL}, {"ENETUNREACH", ENETUNREACH},
	{"ECONNREFUSED", ECONNREFUSED}, {"ETIMEDOUT", ETIMEDOUT},
};

int sx_errno_parse(const char *s)
{
	for (size_t i = 0; i < sizeof errnos / sizeof errnos[0]; i++)
		if (strcmp(s, errnos[i].name) == 0)
			return errnos[i].value;
	uint64_t v;
	if (sr_parse_count(s, 4095, &v) < 0 || v == 0)
		return -1;
	return (int)v;
}

void sx_apply_adjust(struct sx_policy *p, const struct sx_adjust *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int nr = sx_syscall_nr(a[i].name);
		sx_drop(p, nr);
		sx_add(p, nr, a[i].allow ? SCMP_ACT_ALLOW : SCMP_ACT_ERRNO(a[i].err), 0, NULL, -1);
	}
}

static uint32_t logged(uint32_t action)
{
	return action == SCMP_ACT_ALLOW ? action : SCMP_ACT_LOG;
}

void sx_apply_log(struct sx_policy *p)
{
	p->def_action = logged(p->def_action);
	for (size_t i = 0; i < p->n; i++)
		p->v[i].action = logged(p->v[i].action);
}

const char *sx_action_str(uint32_t action, char *buf, size_t len)
{
	const char *s = NULL;
	switch (action & 0xffff0000U) {
	case SCMP_ACT_KILL_PROCESS: s = "KILL_PROCESS"; break;
	case SCMP_ACT_KILL_THREAD: s = "KILL_THREAD"; break;
	case SCMP_ACT_TRAP: s = "TRAP"; break;
	case SCMP_ACT_LOG: s = "LOG"; break;
	case SCMP_ACT_ALLOW: s = "ALLOW"; break;
	case SCMP_ACT_NOTIFY: s = "NOTIFY"; break;
	case 0x00050000U: /* SCMP_ACT_ERRNO(x) */
		snprintf(buf, len, "ERRNO(%u)", action & 0xffffU);
		return buf;
	case 0x7ff00000U: /* SCMP_ACT_TRACE(x) */
		snprintf(buf, len, "TRACE(%u)", action & 0xffffU);
		return buf;
	default: s = "?"; break;
	}
	snprintf(buf, len, "%s", s);
	return buf;
}
