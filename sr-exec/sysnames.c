/* sysnames.c - syscalls newer than the libseccomp we may be linked with.
 *
 * libseccomp 2.5.4 (Debian 12) stops at map_shadow_stack/futex_requeue
 * (Linux 6.6/6.7). Profiles written for newer engines name later syscalls;
 * they are real syscalls, so rules about them must be kept rather than
 * refused as unknown names. Since Linux 5.1 every architecture but alpha
 * numbers new syscalls alike (the asm-generic table), so one number serves
 * all of them. A name that neither libseccomp nor this table knows is an
 * error: it is a typo, not a syscall. */
#include <string.h>

#include "exec.h"

static const struct {
	const char *name;
	int nr;
} newer[] = {
#if !defined(__alpha__)
	{"statmount", 457},
	{"listmount", 458},
	{"lsm_get_self_attr", 459},
	{"lsm_set_self_attr", 460},
	{"lsm_list_modules", 461},
	{"mseal", 462},
	{"setxattrat", 463},
	{"getxattrat", 464},
	{"listxattrat", 465},
	{"removexattrat", 466},
	{"open_tree_attr", 467},
	{"file_getattr", 468},
	{"file_setattr", 469},
#endif
#if defined(__x86_64__) && !defined(__ILP32__)
	{"uretprobe", 335},
#endif
	{NULL, 0},
};

int sx_newer_syscall_nr(const char *name)
{
	for (size_t i = 0; newer[i].name; i++)
		if (strcmp(newer[i].name, name) == 0)
			return newer[i].nr;
	return __NR_SCMP_ERROR;
}

const char *sx_newer_syscall_name(int nr)
{
	for (size_t i = 0; newer[i].name; i++)
		if (newer[i].nr == nr)
			return newer[i].name;
	return NULL;
}
