/* oci.c - an OCI/Docker seccomp JSON profile, read with cJSON.
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
#include <cJSON.h>
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

static const char *need_string(const struct oci *o, const cJSON *j, const char *place)
{
	if (!j)
		bad(o, place, "missing");
	if (!cJSON_IsString(j))
		bad(o, place, "expected a string");
	return j->valuestring;
}

/* A missing or null member counts as an empty array. */
static const cJSON *opt_array(const struct oci *o, const cJSON *j, const char *place)
{
	if (j && !cJSON_IsNull(j) && !cJSON_IsArray(j))
		bad(o, place, "expected an array");
	return cJSON_IsArray(j) ? j : NULL;
}

/* JSON numbers are doubles: integers above 2^53 would not arrive exactly. */
static uint64_t need_uint(const struct oci *o, const cJSON *j, const char *place,
			  uint64_t max)
{
	if (!cJSON_IsNumber(j))
		bad(o, place, "expected a number");
	double d = j->valuedouble;
	/* range first: converting a double outside uint64_t (1e300, inf) is
	 * undefined behaviour; !(d >= 0) also catches a NaN */
	if (!(d >= 0) || d > 9007199254740992.0 || d != (double)(uint64_t)d || (uint64_t)d > max)
		bad(o, place, "%.17g is not an integer from 0 to %llu that JSON carries exactly",
		    d, (unsigned long long)(max < (1ULL << 53) ? max : (1ULL << 53)));
	return (uint64_t)d;
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

static uint32_t parse_action(const struct oci *o, const cJSON *act, const cJSON *ret,
			     const char *place, const char *retplace)
{
	const char *s = need_string(o, act, place);
	if (strcmp(s, "SCMP_ACT_NOTIFY") == 0)
		bad(o, place, "SCMP_ACT_NOTIFY needs a listener process, which sr-exec does not provide");
	for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++) {
		if (strcmp(s, actions[i].name) != 0)
			continue;
		if (!actions[i].takes_errno) {
			if (ret && !cJSON_IsNull(ret))
				bad(o, retplace, "only SCMP_ACT_ERRNO and SCMP_ACT_TRACE take a return value");
			return actions[i].action;
		}
		uint64_t e = EPERM;
		if (ret && !cJSON_IsNull(ret))
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

static struct scmp_arg_cmp parse_arg(const struct oci *o, const cJSON *a, const char *place)
{
	char pl[128];
	if (!cJSON_IsObject(a))
		bad(o, place, "expected an object");
	struct scmp_arg_cmp c = {0};
	c.arg = (unsigned)need_uint(o, cJSON_GetObjectItemCaseSensitive(a, "index"),
				    at(pl, sizeof pl, "%s.index", place), 5);
	c.datum_a = need_uint(o, cJSON_GetObjectItemCaseSensitive(a, "value"),
			      at(pl, sizeof pl, "%s.value", place), UINT64_MAX);
	const cJSON *two = cJSON_GetObjectItemCaseSensitive(a, "valueTwo");
	if (two && !cJSON_IsNull(two))
		c.datum_b = need_uint(o, two, at(pl, sizeof pl, "%s.valueTwo", place), UINT64_MAX);
	const char *op = need_string(o, cJSON_GetObjectItemCaseSensitive(a, "op"),
				     at(pl, sizeof pl, "%s.op", place));
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
static int cond_holds(const struct oci *o, const cJSON *j, const char *place, int include)
{
	char pl[128];
	if (!j || cJSON_IsNull(j))
		return 1;
	if (!cJSON_IsObject(j))
		bad(o, place, "expected an object");
	int hold = 1;
	const cJSON *e, *arr;
	arr = opt_array(o, cJSON_GetObjectItemCaseSensitive(j, "arches"),
			at(pl, sizeof pl, "%s.arches", place));
	int any = 0, n = 0;
	cJSON_ArrayForEach(e, arr) {
		any |= sx_native_arch_is(need_string(o, e, at(pl, sizeof pl, "%s.arches[%d]", place, n++)));
	}
	if (n && (include ? !any : any))
		hold = 0;
	arr = opt_array(o, cJSON_GetObjectItemCaseSensitive(j, "caps"),
			at(pl, sizeof pl, "%s.caps", place));
	n = 0;
	cJSON_ArrayForEach(e, arr) {
		int have = sx_have_cap(need_string(o, e, at(pl, sizeof pl, "%s.caps[%d]", place, n++)));
		if (include ? !have : have)
			hold = 0;
	}
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(j, "minKernel");
	if (k && !cJSON_IsNull(k)) {
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

static int resolve_name(const struct oci *o, const cJSON *n, const char *place)
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

static void parse_entry(const struct oci *o, const cJSON *s, int idx)
{
	char place[64], pl[128], rpl[128];
	at(place, sizeof place, "syscalls[%d]", idx);
	if (!cJSON_IsObject(s))
		bad(o, place, "expected an object");
	at(pl, sizeof pl, "%s.action", place);
	at(rpl, sizeof rpl, "%s.errnoRet", place);
	uint32_t action = parse_action(o, cJSON_GetObjectItemCaseSensitive(s, "action"),
				       cJSON_GetObjectItemCaseSensitive(s, "errnoRet"), pl, rpl);
	struct scmp_arg_cmp c[6];
	unsigned nc = 0;
	const cJSON *a, *args = opt_array(o, cJSON_GetObjectItemCaseSensitive(s, "args"),
					  at(pl, sizeof pl, "%s.args", place));
	cJSON_ArrayForEach(a, args) {
		if (nc == 6)
			bad(o, at(pl, sizeof pl, "%s.args", place), "more than 6 argument conditions");
		c[nc] = parse_arg(o, a, at(pl, sizeof pl, "%s.args[%u]", place, nc));
		nc++;
	}
	int apply = cond_holds(o, cJSON_GetObjectItemCaseSensitive(s, "includes"),
			       at(pl, sizeof pl, "%s.includes", place), 1);
	apply &= cond_holds(o, cJSON_GetObjectItemCaseSensitive(s, "excludes"),
			    at(pl, sizeof pl, "%s.excludes", place), 0);
	const cJSON *n, *names = cJSON_GetObjectItemCaseSensitive(s, "names");
	const cJSON *one = cJSON_GetObjectItemCaseSensitive(s, "name");
	if (!names && !one)
		bad(o, place, "no syscall names");
	int i = 0;
	cJSON_ArrayForEach(n, opt_array(o, names, at(pl, sizeof pl, "%s.names", place))) {
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
static int check_arch(const struct oci *o, const cJSON *e, const char *place)
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
		bad(o, place, "unknown architecture '%s'", e->valuestring);
	return token != seccomp_arch_native();
}

/* Only the native ABI is ever allowed (see the man page): the lists are
 * checked for valid names, and what is left out is said under --verbose. */
static void parse_arches(const struct oci *o, const cJSON *root)
{
	char pl[96];
	const cJSON *e, *m, *sub;
	int n = 0, foreign = 0;
	cJSON_ArrayForEach(e, opt_array(o, cJSON_GetObjectItemCaseSensitive(root, "architectures"),
					"architectures")) {
		foreign |= check_arch(o, e, at(pl, sizeof pl, "architectures[%d]", n));
		n++;
	}
	n = 0;
	cJSON_ArrayForEach(m, opt_array(o, cJSON_GetObjectItemCaseSensitive(root, "archMap"),
					"archMap")) {
		if (!cJSON_IsObject(m))
			bad(o, at(pl, sizeof pl, "archMap[%d]", n), "expected an object");
		foreign |= check_arch(o, cJSON_GetObjectItemCaseSensitive(m, "architecture"),
				      at(pl, sizeof pl, "archMap[%d].architecture", n));
		int k = 0;
		cJSON_ArrayForEach(sub, opt_array(o, cJSON_GetObjectItemCaseSensitive(m, "subArchitectures"),
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

static void parse_flags(const struct oci *o, const cJSON *root)
{
	char pl[64];
	const cJSON *e;
	int n = 0;
	cJSON_ArrayForEach(e, opt_array(o, cJSON_GetObjectItemCaseSensitive(root, "flags"), "flags")) {
		const char *s = need_string(o, e, at(pl, sizeof pl, "flags[%d]", n++));
		size_t i = 0;
		while (i < sizeof flags / sizeof flags[0] && strcmp(flags[i].name, s) != 0)
			i++;
		if (i == sizeof flags / sizeof flags[0])
			bad(o, pl, "unknown flag '%s'", s);
		o->p->load_flags |= flags[i].flag;
	}
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(root, "listenerPath");
	if (l && !cJSON_IsNull(l) && *need_string(o, l, "listenerPath"))
		bad(o, "listenerPath", "a seccomp listener is not supported");
}

/* "line L, column C" of a parse error. */
static void syntax_error(const struct oci *o, const char *buf, size_t len, const char *end)
{
	char place[64];
	if (!end || end < buf || end > buf + len)
		end = buf + len;
	unsigned line = 1, col = 1;
	for (const char *q = buf; q < end; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	bad(o, at(place, sizeof place, "line %u, column %u", line, col),
	    end == buf + len ? "malformed JSON (unexpected end)" : "malformed JSON");
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
	const char *end = NULL;
	/* len + 1: with require_null_terminated, cJSON wants to see the NUL */
	cJSON *root = cJSON_ParseWithLengthOpts(buf, len + 1, &end, 1);
	if (!root)
		syntax_error(&o, buf, len, end ? end : cJSON_GetErrorPtr());
	if (!cJSON_IsObject(root))
		bad(&o, "top level", "expected an object");
	p->name = file;
	p->def_action = parse_action(&o, cJSON_GetObjectItemCaseSensitive(root, "defaultAction"),
				     cJSON_GetObjectItemCaseSensitive(root, "defaultErrnoRet"),
				     "defaultAction", "defaultErrnoRet");
	parse_arches(&o, root);
	parse_flags(&o, root);
	const cJSON *s, *calls = opt_array(&o, cJSON_GetObjectItemCaseSensitive(root, "syscalls"),
					   "syscalls");
	int i = 0;
	cJSON_ArrayForEach(s, calls)
		parse_entry(&o, s, i++);
	cJSON_Delete(root);
	free(buf);
}
