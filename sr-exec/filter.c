/* filter.c - compile the rule list with libseccomp, show it, load it.
 *
 * libseccomp only compiles: the BPF is exported to a memfd and loaded with
 * seccomp(2) directly, so a filter read from a --bpf file and a freshly
 * compiled one take the same path into the kernel. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec.h"
#include "sr.h"

static void attr(scmp_filter_ctx ctx, enum scmp_filter_attr a, uint32_t v)
{
	int rc = seccomp_attr_set(ctx, a, v);
	if (rc < 0) {
		errno = -rc;
		sr_fatal_sys(SR_EXIT_SYS, "unable to set seccomp filter attribute %d", (int)a);
	}
}

static void add_rule(scmp_filter_ctx ctx, const struct sx_policy *p, const struct sx_rule *r)
{
	/* Like the engines, a rule that only repeats the default is dropped
	 * (libseccomp refuses it). */
	if (r->action == p->def_action)
		return;
	int rc = seccomp_rule_add_array(ctx, r->action, r->nr, r->ncmp, r->cmp);
	if (rc == 0)
		return;
	const char *name = sx_syscall_name(r->nr);
	if (r->entry >= 0)
		sr_fatal(SR_EXIT_USAGE, "%s: syscalls[%d]: libseccomp refused the rule for '%s': %s",
			 p->name, r->entry, name, strerror(-rc));
	errno = -rc;
	sr_fatal_sys(SR_EXIT_SYS, "unable to add the seccomp rule for %s", name);
}

static scmp_filter_ctx build(const struct sx_policy *p)
{
	scmp_filter_ctx ctx = seccomp_init(p->def_action);
	if (!ctx)
		sr_fatal(SR_EXIT_SYS, "unable to create a seccomp filter (libseccomp)");
	/* Only the native ABI: i386 (int 0x80) and, on x86_64, x32 syscall
	 * numbers (bit 30 set) take the bad-arch action. */
	attr(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	attr(ctx, SCMP_FLTATR_CTL_NNP, 0);          /* main sets it, once */
	attr(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);     /* binary search on syscall */
	for (size_t i = 0; i < p->n; i++)
		add_rule(ctx, p, &p->v[i]);
	return ctx;
}

void sx_compile(const struct sx_policy *p, struct sx_bpf *out)
{
	scmp_filter_ctx ctx = build(p);
	int fd = memfd_create("sr-exec-bpf", MFD_CLOEXEC);
	if (fd < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to create a memfd for the filter");
	int rc = seccomp_export_bpf(ctx, fd);
	seccomp_release(ctx);
	if (rc < 0) {
		errno = -rc;
		sr_fatal_sys(SR_EXIT_SYS, "unable to compile the seccomp filter");
	}
	off_t size = lseek(fd, 0, SEEK_END);
	if (size <= 0 || size % sizeof(struct sock_filter) != 0)
		sr_fatal(SR_EXIT_SYS, "libseccomp produced a filter of %lld bytes", (long long)size);
	void *buf = malloc((size_t)size);
	if (!buf || pread(fd, buf, (size_t)size, 0) != size)
		sr_fatal_sys(SR_EXIT_SYS, "unable to read the compiled filter");
	close(fd);
	out->insns = buf;
	out->len = (size_t)size / sizeof(struct sock_filter);
}

void sx_print(const struct sx_policy *p)
{
	char def[32];
	scmp_filter_ctx ctx = build(p);
	printf("# sr-exec: profile %s, %zu rules, default action %s\n", p->name, p->n,
	       sx_action_str(p->def_action, def, sizeof def));
	fflush(stdout);
	int rc = seccomp_export_pfc(ctx, STDOUT_FILENO);
	seccomp_release(ctx);
	if (rc < 0) {
		errno = -rc;
		sr_fatal_sys(SR_EXIT_SYS, "unable to print the seccomp filter");
	}
}

int sx_load(const struct sx_bpf *b, unsigned flags)
{
	if (b->len == 0 || b->len > BPF_MAXINSNS)
		sr_fatal(SR_EXIT_SYS, "seccomp filter of %zu instructions (the kernel takes 1 to %d)",
			 b->len, BPF_MAXINSNS);
	struct sock_fprog prog = {(unsigned short)b->len, b->insns};
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog) < 0)
		return errno;
	return 0;
}
