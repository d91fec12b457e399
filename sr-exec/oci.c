/* oci.c - an OCI/Docker seccomp JSON profile, read with lib/jr.c.
 *
 * Semantics follow the engines (runc, crun, moby): a rule applies when its
 * includes hold and its excludes do not (caps against this process's
 * effective set, arches against the native one, minKernel against uname);
 * conditions in one rule are ANDed, unless an argument index repeats, in
 * which case each condition is a rule of its own (ORed); SCMP_CMP_MASKED_EQ
 * takes the mask in `value` and the datum in `valueTwo`; ERRNO without
 * errnoRet is EPERM. Every entry is checked, even one whose conditions
 * leave it out, so a typo anywhere is reported. Any error exits 100 with
 * "FILE: PLACE: REASON". */
#include <errno.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "sr.h"

struct oci {
	const char *file;
	int verbose;
	struct sx_policy *p;
};

static void bad(const struct oci *o, const char *place, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
static void bad(const struct oci *o, const char *place, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	sr_fatal(SR_EXIT_USAGE, "%s: %s: %s", o->file, place, msg);
}

static const char *at(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static const char *at(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return buf;
}

static const char *need_string(const struct oci *o, const struct sr_jr *j, const char *place)
{
	if (!j)
		bad(o, place, "missing");
	if (!sr_jr_is(j, SR_JR_STRING))
		bad(o, place, "expected a string");
	return j->str;
}

/* A missing or null member counts as an empty array. */
static const struct sr_jr *opt_array(const struct oci *o, const struct sr_jr *j,
				     const char *place)
{
	if (j && !sr_jr_is(j, SR_JR_NULL) && !sr_jr_is(j, SR_JR_ARRAY))
		bad(o, place, "expected an array");
	return sr_jr_is(j, SR_JR_ARRAY) ? j : NULL;
}

/* Read exactly, as written: 18446744073709551615 and 1e3 are integers,
 * 1.5 and 2^64 are not. */
static uint64_t need_uint(const struct oci *o, const struct sr_jr *j, const char *place,
			  uint64_t max)
{
	uint64_t v;
	if (!sr_jr_is(j, SR_JR_NUMBER))
		bad(o, place, "expected a number");
	if (sr_jr_uint(j, &v) < 0 || v > max)
		bad(o, place, "%s is not an integer from 0 to %llu", j->str, (unsigned long long)max);
	return v;
}

static const struct {
	const char *name;
	uint32_t action;
	int takes_errno;             /* 1: ERRNO, 2: TRACE */
} actions[] = {
	{"SCMP_ACT_KILL", SCMP_ACT_KILL, 0},
	{"SCMP_ACT_KILL_THREAD", SCMP_ACT_KILL_THREAD, 0},
	{"SCMP_ACT_KILL_PROCESS", SCMP_ACT_KILL_PROCESS, 0},
	{"SCMP_ACT_TRAP", SCMP_ACT_TRAP, 0},
	{"SCMP_ACT_ERRNO", SCMP_ACT_ERRNO(0), 1},
	{"SCMP_ACT_TRACE", SCMP_ACT_TRACE(0), 2},
	{"SCMP_ACT_ALLOW", SCMP_ACT_ALLOW, 0},
	{"SCMP_ACT_LOG", SCMP_ACT_LOG, 0},
};

static uint32_t parse_action(const struct oci *o, const struct sr_jr *act,
			     const struct sr_jr *ret, const char *place, const char *retplace)
{
	const char *s = need_string(o, act, place);
	if (strcmp(s, "SCMP_ACT_NOTIFY") == 0)
		bad(o, place, "SCMP_ACT_NOTIFY needs a listener process, which sr-exec does not provide");
	for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++) {
		if (strcmp(s, actions[i].name) != 0)
			continue;
		if (!actions[i].takes_errno) {
			if (ret && !sr_jr_is(ret, SR_JR_NULL))
				bad(o, retplace, "only SCMP_ACT_ERRNO and SCMP_ACT_TRACE take a return value");
			return actions[i].action;
		}
		uint64_t e = EPERM;
		if (ret && !sr_jr_is(ret, SR_JR_NULL))
			e = need_uint(o, ret, retplace, actions[i].takes_errno == 1 ? 4095 : 65535);
		return actions[i].action | (uint32_t)e;
	}
	bad(o, place, "unknown action '%s'", s);
}

static const struct {
	const char *name;
	enum scmp_compare op;
} ops[] = {
	{"SCMP_CMP_NE", SCMP_CMP_NE}, {"SCMP_CMP_LT", SCMP_CMP_LT},
	{"SCMP_CMP_LE", SCMP_CMP_LE}, {"SCMP_CMP_EQ", SCMP_CMP_EQ},
	{"SCMP_CMP_GE", SCMP_CMP_GE}, {"SCMP_CMP_GT", SCMP_CMP_GT},
	{"SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ},
};

static struct scmp_arg_cmp parse_arg(const struct oci *o, const struct sr_jr *a,
				     const char *place)
{
	char pl[128];
	if (!sr_jr_is(a, SR_JR_OBJECT))
		bad(o, place, "expected an object");
	struct scmp_arg_cmp c = {0};
	c.arg = (unsigned)need_uint(o, sr_jr_get(a, "index"), at(pl, sizeof pl, "%s.index", place), 5);
	c.datum_a = need_uint(o, sr_jr_get(a, "value"), at(pl, sizeof pl, "%s.value", place),
			      UINT64_MAX);
	const struct sr_jr *two = sr_jr_get(a, "valueTwo");
	if (two && !sr_jr_is(two, SR_JR_NULL))
		c.datum_b = need_uint(o, two, at(pl, sizeof pl, "%s.valueTwo", place), UINT64_MAX);
	const char *op = need_string(o, sr_jr_get(a, "op"), at(pl, sizeof pl, "%s.op", place));
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (strcmp(op, ops[i].name) == 0)
			c.op = ops[i].op;
	if (c.op == 0)
		bad(o, pl, "unknown operator '%s'", op);
	/* The engines compare a single value for all but MASKED_EQ. */
	if (c.op != SCMP_CMP_MASKED_EQ)
		c.datum_b = 0;
	return c;
}

/* 1 when the rule applies to this process. */
static int cond_holds(const struct oci *o, const struct sr_jr *j, const char *place, int include)
{
	char pl[128];
	if (!j || sr_jr_is(j, SR_JR_NULL))
		return 1;
	if (!sr_jr_is(j, SR_JR_OBJECT))
		bad(o, place, "expected an object");
	int hold = 1;
	const struct sr_jr *e, *arr;
	arr = opt_array(o, sr_jr_get(j, "arches"), at(pl, sizeof pl, "%s.arches", place));
	int any = 0, n = 0;
	SR_JR_EACH(e, arr) {
		any |= sx_native_arch_is(need_string(o, e, at(pl, sizeof pl, "%s.arches[%d]", place, n++)));
	}
	if (n && (include ? !any : any))
		hold = 0;
	arr = opt_array(o, sr_jr_get(j, "caps"), at(pl, sizeof pl, "%s.caps", place));
	n = 0;
	SR_JR_EACH(e, arr) {
		int have = sx_have_cap(need_string(o, e, at(pl, sizeof pl, "%s.caps[%d]", place, n++)));
		if (include ? !have : have)
			hold = 0;
	}
	const struct sr_jr *k = sr_jr_get(j, "minKernel");
	if (k && !sr_jr_is(k, SR_JR_NULL)) {
		const char *kp = at(pl, sizeof pl, "%s.minKernel", place);
		const char *v = need_string(o, k, kp);
		int ge = *v ? sx_kernel_at_least(v) : (include ? 1 : 0);
		if (ge < 0)
			bad(o, kp, "'%s' is not a kernel version (major.minor)", v);
		if (include ? !ge : ge)
			hold = 0;
	}
	return hold;
}

static int resolve_name(const struct oci *o, const struct sr_jr *n, const char *place)
{
	const char *name = need_string(o, n, place);
	int nr = sx_syscall_nr(name);
	if (nr == __NR_SCMP_ERROR)
		bad(o, place, "unknown syscall '%s'", name);
	return nr;
}

static void add_rules(const struct oci *o, int nr, uint32_t action,
		      const struct scmp_arg_cmp *c, unsigned nc, int entry)
{
	unsigned seen = 0, repeat = 0;
	for (unsigned i = 0; i < nc; i++) {
		repeat |= seen & (1U << c[i].arg);
		seen |= 1U << c[i].arg;
	}
	if (!repeat) {
		sx_add(o->p, nr, action, nc, c, entry);
		return;
	}
	for (unsigned i = 0; i < nc; i++)
		sx_add(o->p, nr, action, 1, &c[i], entry);
}

static void parse_entry(const struct oci *o, const struct sr_jr *s, int idx)
{
	char place[64], pl[128], rpl[128];
	at(place, sizeof place, "syscalls[%d]", idx);
	if (!sr_jr_is(s, SR_JR_OBJECT))
		bad(o, place, "expected an object");
	at(pl, sizeof pl, "%s.action", place);
	at(rpl, sizeof rpl, "%s.errnoRet", place);
	uint32_t action = parse_action(o, sr_jr_get(s, "action"), sr_jr_get(s, "errnoRet"), pl, rpl);
	struct scmp_arg_cmp c[6];
	unsigned nc = 0;
	const struct sr_jr *a, *args = opt_array(o, sr_jr_get(s, "args"),
						 at(pl, sizeof pl, "%s.args", place));
	SR_JR_EACH(a, args) {
		if (nc == 6)
			bad(o, at(pl, sizeof pl, "%s.args", place), "more than 6 argument conditions");
		c[nc] = parse_arg(o, a, at(pl, sizeof pl, "%s.args[%u]", place, nc));
		nc++;
	}
	int apply = cond_holds(o, sr_jr_get(s, "includes"),
			       at(pl, sizeof pl, "%s.includes", place), 1);
	apply &= cond_holds(o, sr_jr_get(s, "excludes"),
			    at(pl, sizeof pl, "%s.excludes", place), 0);
	const struct sr_jr *n, *names = sr_jr_get(s, "names");
	const struct sr_jr *one = sr_jr_get(s, "name");
	if (!names && !one)
		bad(o, place, "no syscall names");
	int i = 0;
	SR_JR_EACH(n, opt_array(o, names, at(pl, sizeof pl, "%s.names", place))) {
		int nr = resolve_name(o, n, at(pl, sizeof pl, "%s.names[%d]", place, i++));
		if (apply)
			add_rules(o, nr, action, c, nc, idx);
	}
	if (one) {
		int nr = resolve_name(o, one, at(pl, sizeof pl, "%s.name", place));
		if (apply)
			add_rules(o, nr, action, c, nc, idx);
	}
}

/* 1 when the named architecture (SCMP_ARCH_X86_64 ...) is not the native one. */
static int check_arch(const struct oci *o, const struct sr_jr *e, const char *place)
{
	const char *s = need_string(o, e, place);
	char low[32];
	size_t k = 0;
	if (strncmp(s, "SCMP_ARCH_", 10) == 0)
		s += 10;
	for (; *s && k < sizeof low - 1; s++)
		low[k++] = (char)(*s >= 'A' && *s <= 'Z' ? *s + ('a' - 'A') : *s);
	low[k] = '\0';
	uint32_t token = *s ? 0 : seccomp_arch_resolve_name(low);
	if (token == 0)
		bad(o, place, "unknown architecture '%s'", e->str);
	return token != seccomp_arch_native();
}

/* Only the native ABI is ever allowed (see the man page): the lists are
 * checked for valid names, and what is left out is said under --verbose. */
static void parse_arches(const struct oci *o, const struct sr_jr *root)
{
	char pl[96];
	const struct sr_jr *e, *m, *sub;
	int n = 0, foreign = 0;
	SR_JR_EACH(e, opt_array(o, sr_jr_get(root, "architectures"), "architectures")) {
		foreign |= check_arch(o, e, at(pl, sizeof pl, "architectures[%d]", n));
		n++;
	}
	n = 0;
	SR_JR_EACH(m, opt_array(o, sr_jr_get(root, "archMap"), "archMap")) {
		if (!sr_jr_is(m, SR_JR_OBJECT))
			bad(o, at(pl, sizeof pl, "archMap[%d]", n), "expected an object");
		foreign |= check_arch(o, sr_jr_get(m, "architecture"),
				      at(pl, sizeof pl, "archMap[%d].architecture", n));
		int k = 0;
		SR_JR_EACH(sub, opt_array(o, sr_jr_get(m, "subArchitectures"),
					  at(pl, sizeof pl, "archMap[%d].subArchitectures", n))) {
			foreign |= check_arch(o, sub, at(pl, sizeof pl, "archMap[%d].subArchitectures[%d]", n, k));
			k++;
		}
		n++;
	}
	if (o->verbose && foreign)
		sr_warn("%s: other architectures the profile lists are not allowed: their syscalls kill the process",
			o->file);
}

static const struct {
	const char *name;
	unsigned flag;
} flags[] = {
	{"SECCOMP_FILTER_FLAG_TSYNC", 0},           /* sr-exec is single-threaded */
	{"SECCOMP_FILTER_FLAG_LOG", SECCOMP_FILTER_FLAG_LOG},
	{"SECCOMP_FILTER_FLAG_SPEC_ALLOW", SECCOMP_FILTER_FLAG_SPEC_ALLOW},
	{"SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", 0}, /* only with a listener */
};

static void parse_flags(const struct oci *o, const struct sr_jr *root)
{
	char pl[64];
	const struct sr_jr *e;
	int n = 0;
	SR_JR_EACH(e, opt_array(o, sr_jr_get(root, "flags"), "flags")) {
		const char *s = need_string(o, e, at(pl, sizeof pl, "flags[%d]", n++));
		size_t i = 0;
		while (i < sizeof flags / sizeof flags[0] && strcmp(flags[i].name, s) != 0)
			i++;
		if (i == sizeof flags / sizeof flags[0])
			bad(o, pl, "unknown flag '%s'", s);
		o->p->load_flags |= flags[i].flag;
	}
	const struct sr_jr *l = sr_jr_get(root, "listenerPath");
	if (l && !sr_jr_is(l, SR_JR_NULL) && *need_string(o, l, "listenerPath"))
		bad(o, "listenerPath", "a seccomp listener is not supported");
}

/* "line L, column C" of a parse error, counted in bytes. */
static void syntax_error(const struct oci *o, const char *buf, const struct sr_jr_error *e)
{
	char place[64];
	unsigned line = 1, col = 1;
	for (const char *q = buf; q < buf + e->pos; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	bad(o, at(place, sizeof place, "line %u, column %u", line, col), "malformed JSON (%s)", e->what);
}

void sx_profile_oci(struct sx_policy *p, const char *file, int verbose)
{
	struct oci o = {file, verbose, p};
	size_t len;
	char *buf = sr_read_file(file, 64 << 20, &len);
	if (!buf)
		sr_fatal_sys(SR_EXIT_SYS, "unable to read profile %s", file);
	if (strlen(buf) != len)
		bad(&o, "content", "contains a NUL byte");
	struct sr_jr_error e;
	struct sr_jr *root = sr_jr_parse(buf, len, &e);
	if (!root && errno == ENOMEM)
		sr_fatal_sys(SR_EXIT_SYS, "unable to read profile %s", file);
	if (!root)
		syntax_error(&o, buf, &e);
	if (!sr_jr_is(root, SR_JR_OBJECT))
		bad(&o, "top level", "expected an object");
	p->name = file;
	p->def_action = parse_action(&o, sr_jr_get(root, "defaultAction"),
				     sr_jr_get(root, "defaultErrnoRet"),
				     "defaultAction", "defaultErrnoRet");
	parse_arches(&o, root);
	parse_flags(&o, root);
	const struct sr_jr *s, *calls = opt_array(&o, sr_jr_get(root, "syscalls"), "syscalls");
	int i = 0;
	SR_JR_EACH(s, calls)
		parse_entry(&o, s, i++);
	sr_jr_free(root);
	free(buf);
}
