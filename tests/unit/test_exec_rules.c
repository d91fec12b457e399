/* test_exec_rules.c - sr-exec's rule lists, checked by evaluating them.
 *
 * libseccomp gives no "otherwise" per syscall, so sr-exec writes argument
 * checks as partitions of the value space (rules.c, profile_default.c).
 * Here the rules are evaluated the way the filter compares (64-bit, or
 * masked) over edge and random values: every value must match rules of
 * exactly one action (no overlap between actions, no hole), and that
 * action must be the intended one. Also: OCI minKernel version parsing. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>

#include "../../sr-exec/oci_cond.c"
#include "../../sr-exec/profile_default.c"
#include "../../sr-exec/rules.c"
#include "../../sr-exec/sysnames.c"

static int n_test, n_fail;

__attribute__((format(printf, 2, 3)))
static void ok(int cond, const char *fmt, ...)
{
	va_list ap;
	n_test++;
	if (!cond)
		n_fail++;
	printf("%s %d - ", cond ? "ok" : "not ok", n_test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static int cmp_holds(const struct scmp_arg_cmp *c, const uint64_t *args)
{
	uint64_t a = args[c->arg];
	switch (c->op) {
	case SCMP_CMP_EQ: return a == c->datum_a;
	case SCMP_CMP_NE: return a != c->datum_a;
	case SCMP_CMP_LT: return a < c->datum_a;
	case SCMP_CMP_LE: return a <= c->datum_a;
	case SCMP_CMP_GT: return a > c->datum_a;
	case SCMP_CMP_GE: return a >= c->datum_a;
	case SCMP_CMP_MASKED_EQ: return (a & c->datum_a) == c->datum_b;
	default: return 0;
	}
}

#define NONE 0xdeadbeefU    /* no rule matched */
#define CONFLICT 0xbadU     /* rules of different actions matched */

static uint32_t eval(const struct sx_policy *p, int nr, const uint64_t *args)
{
	uint32_t act = NONE;
	for (size_t i = 0; i < p->n; i++) {
		const struct sx_rule *r = &p->v[i];
		int hold = r->nr == nr;
		for (unsigned k = 0; hold && k < r->ncmp; k++)
			hold = cmp_holds(&r->cmp[k], args);
		if (!hold)
			continue;
		if (act != NONE && act != r->action)
			return CONFLICT;
		act = r->action;
	}
	return act;
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

typedef uint32_t (*want_fn)(uint64_t v);

/* Check one argument of one syscall over edge values and random ones. */
static void check_arg(const struct sx_policy *p, const char *name, unsigned arg,
		      const uint64_t *edges, size_t nedges, want_fn want, const uint64_t *fixed)
{
	int nr = sx_syscall_nr(name);
	uint64_t args[6] = {0};
	size_t bad = 0, total = 0;
	uint64_t first_bad = 0;
	uint32_t got_bad = 0;
	for (size_t i = 0; i < nedges + 200000; i++) {
		uint64_t v;
		if (i < nedges)
			v = edges[i];
		else if (i % 4 == 0)
			v = rnd();
		else if (i % 4 == 1)
			v = rnd() & 0xffffffffU;
		else if (i % 4 == 2)
			v = (edges[i % nedges] ^ (1ULL << (rnd() % 64)));
		else
			v = rnd() & 0xff;
		if (fixed)
			memcpy(args, fixed, sizeof args);
		args[arg] = v;
		uint32_t got = eval(p, nr, args);
		total++;
		if (got != want(v)) {
			if (!bad++) {
				first_bad = v;
				got_bad = got;
			}
		}
	}
	ok(bad == 0, "%s arg %u: %zu values, each matched by exactly the intended action%s",
	   name, arg, total, bad ? " (see diag)" : "");
	if (bad)
		printf("# first bad value %#llx got %#x want %#x (%zu bad)\n",
		       (unsigned long long)first_bad, got_bad, want(first_bad), bad);
}

static uint32_t want_ioctl(uint64_t v)
{
	uint32_t lo = (uint32_t)v;
	return lo == TIOCSTI || lo == TIOCLINUX ? DENY : SCMP_ACT_ALLOW;
}

static uint32_t want_personality(uint64_t v)
{
	uint32_t lo = (uint32_t)v;
	return lo == 0 || lo == 8 || lo == 0x20000 || lo == 0x20008 || lo == 0xffffffffU
		       ? SCMP_ACT_ALLOW : DENY;
}

static uint32_t want_unix(uint64_t v)
{
	return v == AF_UNIX ? SCMP_ACT_ALLOW : DENY;
}

/* with protocol 0: AF_NETLINK is NETLINK_ROUTE, allowed */
static uint32_t want_net(uint64_t v)
{
	return v == AF_UNIX || v == AF_INET || v == AF_INET6 || v == AF_NETLINK
		       ? SCMP_ACT_ALLOW : DENY;
}

static uint32_t want_self(uint64_t v)
{
	return v == 0 ? SCMP_ACT_ALLOW : DENY;
}

static uint32_t want_clone(uint64_t v)
{
	return (v & NS_FLAGS) == 0 ? SCMP_ACT_ALLOW : DENY;
}

static uint32_t want_thread(uint64_t v)
{
	return (v & (NS_FLAGS | CLONE_THREAD | CLONE_VM)) == (CLONE_THREAD | CLONE_VM)
		       ? SCMP_ACT_ALLOW : DENY;
}

static uint32_t want_route(uint64_t v)
{
	return v == NETLINK_ROUTE ? SCMP_ACT_ALLOW : DENY;
}

static const uint64_t edges[] = {
	0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 0x5401, 0x5411, 0x5412, 0x5413, 0x541b,
	0x541c, 0x541d, 0x20000, 0x20008, 0x400000, 0x7fffffff, 0x80000000,
	0xfffffffe, 0xffffffff, 0x100000000ULL, 0x100000001ULL,
	0xffffffff00005412ULL, 0xffffffff0000541cULL, 0x100005412ULL,
	0xffffffff00000000ULL, 0xffffffffffffffffULL, CLONE_NEWUSER,
	CLONE_NEWUSER | SIGCHLD, CLONE_THREAD | CLONE_VM | CLONE_SIGHAND,
	CLONE_VM | CLONE_VFORK | SIGCHLD, 0x7e020000, 0x80000000ULL | CLONE_NEWNET,
};
#define NEDGES (sizeof edges / sizeof edges[0])

/* The three profiles every check reads: the default, with network, and
 * strict for one path. */
static struct sx_policy def, net, strict;
static const char path[] = "/bin/true";

/* Each argument a rule looks at, tried with every edge value. */
static void arguments(void)
{
	check_arg(&def, "ioctl", 1, edges, NEDGES, want_ioctl, NULL);
	check_arg(&def, "personality", 0, edges, NEDGES, want_personality, NULL);
	check_arg(&def, "socket", 0, edges, NEDGES, want_unix, NULL);
	check_arg(&def, "socketpair", 0, edges, NEDGES, want_unix, NULL);
	check_arg(&def, "prlimit64", 0, edges, NEDGES, want_self, NULL);
	check_arg(&def, "clone", CLONE_FLAGS_ARG, edges, NEDGES, want_clone, NULL);
	check_arg(&strict, "clone", CLONE_FLAGS_ARG, edges, NEDGES, want_thread, NULL);
	check_arg(&net, "socket", 0, edges, NEDGES, want_net, NULL);
	uint64_t netlink[6] = {AF_NETLINK, 0, 0, 0, 0, 0};
	check_arg(&net, "socket", 2, edges, NEDGES, want_route, netlink);
}

/* Whole calls: clone3, mount, and strict's one execve. */
static void calls(void)
{
	uint64_t args[6] = {0};
	int nr = sx_syscall_nr("clone3");
	ok(eval(&def, nr, args) == SCMP_ACT_ERRNO(ENOSYS), "clone3 answers ENOSYS");
	nr = sx_syscall_nr("mount");
	ok(eval(&def, nr, args) == DENY && eval(&strict, nr, args) == DENY,
	   "mount refused with EPERM by default and strict");
	nr = sx_syscall_nr("execve");
	args[0] = (uintptr_t)path;
	ok(eval(&strict, nr, args) == SCMP_ACT_ALLOW, "strict: execve of the one path allowed");
	args[0] = (uintptr_t)path + 1;
	ok(eval(&strict, nr, args) == DENY, "strict: execve of any other pointer refused");
}

/* No syscall is both allowed and refused without conditions. */
static void no_clash(void)
{
	size_t clash = 0;
	for (size_t i = 0; i < def.n; i++)
		for (size_t j = i + 1; j < def.n; j++)
			clash += def.v[i].nr == def.v[j].nr && !def.v[i].ncmp && !def.v[j].ncmp &&
				 def.v[i].action != def.v[j].action;
	ok(clash == 0, "default: no syscall has two unconditional rules that disagree");
}

/* --allow / --deny replace every rule of the syscall. */
static void adjustments(void)
{
	uint64_t args[6] = {0};
	struct sx_adjust adj[] = {{"socket", 1, 0}, {"getppid", 0, EACCES}};
	sx_apply_adjust(&def, adj, 2);
	args[0] = AF_INET;
	ok(eval(&def, sx_syscall_nr("socket"), args) == SCMP_ACT_ALLOW, "--allow socket allows AF_INET");
	ok(eval(&def, sx_syscall_nr("getppid"), args) == SCMP_ACT_ERRNO(EACCES),
	   "--deny getppid:EACCES");
	sx_apply_log(&def);
	ok(def.def_action == SCMP_ACT_LOG && eval(&def, sx_syscall_nr("mount"), args) == SCMP_ACT_LOG,
	   "--log turns refusals into LOG");
}

/* Syscall and errno names, and minKernel. */
static void names(void)
{
	ok(sx_syscall_nr("mseal") == 462 && sx_syscall_nr("read") >= 0 &&
	   sx_syscall_nr("no_such_call") == __NR_SCMP_ERROR, "syscall names: known, newer, unknown");
	ok(sx_errno_parse("EPERM") == EPERM && sx_errno_parse("38") == 38 &&
	   sx_errno_parse("0") == -1 && sx_errno_parse("4096") == -1 && sx_errno_parse("EFOO") == -1,
	   "errno names and numbers");

	ok(sx_kernel_at_least("1.0") == 1 && sx_kernel_at_least("999.0") == 0,
	   "minKernel compared with the running kernel");
	ok(sx_kernel_at_least("4") == -1 && sx_kernel_at_least("4.x") == -1 &&
	   sx_kernel_at_least("") == -1 && sx_kernel_at_least("4.8.1.2") == -1,
	   "malformed minKernel refused");
}

int main(void)
{
	sx_profile_default(&def, 0);
	sx_profile_default(&net, 1);
	sx_profile_strict(&strict, path);
	arguments();
	calls();
	no_clash();
	adjustments();
	names();
	free(def.v);
	free(net.v);
	free(strict.v);
	printf("1..%d\n", n_test);
	return n_fail != 0;
}
