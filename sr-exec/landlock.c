/* landlock.c - filesystem rules and scoping with the best Landlock ABI.
 *
 * The constants are defined here: distribution headers lag the kernel
 * (Debian 12's stop at ABI 2) and the ABI is stable by design. What the
 * running kernel supports is asked with LANDLOCK_CREATE_RULESET_VERSION,
 * and only the rights that ABI knows are handled:
 *   ABI 1  the 13 basic filesystem rights    ABI 2  REFER (rename/link across dirs)
 *   ABI 3  TRUNCATE                          ABI 5  IOCTL_DEV
 *   ABI 6  scoping of abstract unix sockets and signals */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec.h"
#include "sr.h"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

#define LL_VERSION 1U                  /* LANDLOCK_CREATE_RULESET_VERSION */
#define LL_RULE_PATH_BENEATH 1

#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_REFER (1ULL << 13)
#define FS_TRUNCATE (1ULL << 14)
#define FS_IOCTL_DEV (1ULL << 15)
#define FS_FILE_ONLY (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)

#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct ll_path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

int sx_landlock_abi(void)
{
	long v = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_VERSION);
	return v < 0 ? 0 : (int)v;
}

static uint64_t fs_rights(int abi)
{
	uint64_t all = (1ULL << 13) - 1;
	if (abi >= 2)
		all |= FS_REFER;
	if (abi >= 3)
		all |= FS_TRUNCATE;
	if (abi >= 5)
		all |= FS_IOCTL_DEV;
	return all;
}

static uint64_t kind_rights(enum sx_path_kind k, uint64_t handled)
{
	switch (k) {
	case SX_RO: return FS_READ_FILE | FS_READ_DIR;
	case SX_RX: return FS_READ_FILE | FS_READ_DIR | FS_EXECUTE;
	case SX_RW: return handled & ~FS_EXECUTE;
	}
	return 0;
}

static void add_path(int ruleset, const struct sx_path *sp, uint64_t handled)
{
	int fd = open(sp->path, O_PATH | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to open %s for a Landlock rule", sp->path);
	struct ll_path_beneath pb = {kind_rights(sp->kind, handled), fd};
	if (!S_ISDIR(st.st_mode))
		pb.allowed_access &= FS_FILE_ONLY;
	if (syscall(__NR_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to add the Landlock rule for %s", sp->path);
	close(fd);
}

static char summary[256];

static const char *unenforced(const struct sx_opts *o, const char *why)
{
	if (o->landlock == SX_LL_REQUIRE)
		sr_fatal(SR_EXIT_SYS, "unable to enforce Landlock (--landlock=require): %s", why);
	if (o->npaths)
		sr_warn("Landlock: %s: --ro/--rw/--rx not enforced", why);
	snprintf(summary, sizeof summary, "not enforced: %s", why);
	return summary;
}

const char *sx_landlock(const struct sx_opts *o)
{
	if (o->landlock == SX_LL_OFF)
		return "off";
	int abi = sx_landlock_abi();
	if (abi < 1)
		return unenforced(o, errno == EOPNOTSUPP ? "disabled in this kernel"
							 : "not supported by this kernel");
	struct ll_ruleset_attr ra = {0, 0, 0};
	if (o->npaths)
		ra.handled_access_fs = fs_rights(abi);
	if (abi >= 6)
		ra.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL;
	if (!ra.handled_access_fs && !ra.scoped) {
		snprintf(summary, sizeof summary, "ABI %d: nothing to enforce (no paths; scoping needs ABI 6)",
			 abi);
		return summary;
	}
	int rs = (int)syscall(__NR_landlock_create_ruleset, &ra, sizeof ra, 0);
	if (rs < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to create a Landlock ruleset");
	for (size_t i = 0; i < o->npaths; i++)
		add_path(rs, &o->paths[i], ra.handled_access_fs);
	if (syscall(__NR_landlock_restrict_self, rs, 0) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to enforce the Landlock ruleset");
	close(rs);
	snprintf(summary, sizeof summary, "ABI %d: filesystem %s (%zu rules); scoped %s", abi,
		 o->npaths ? "restricted" : "unrestricted", o->npaths,
		 ra.scoped ? "abstract unix sockets and signals" : "nothing (needs ABI 6)");
	return summary;
}
