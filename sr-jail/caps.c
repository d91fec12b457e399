/* caps.c - leave the jail with no capabilities and no way to gain any. */
#include <errno.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"
#include "sr.h"

/* Inheritable, permitted and effective sets emptied. */
void jail_drop_effective_caps(void)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {{0, 0, 0}};
	if (syscall(SYS_capset, &hdr, data) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to drop the capabilities");
}

/* The bounding set limits what an exec can grant; emptying it leaves
 * the capabilities in effect now alone. */
void jail_drop_bounding(void)
{
	for (int cap = 0; cap < 64; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
			continue;
		if (errno == EINVAL) /* past the last capability */
			break;
		sr_fatal_sys(SR_EXIT_SYS, "unable to drop capability %d from the bounding set", cap);
	}
}

/* After jail_drop_bounding: ambient, inheritable, permitted and effective
 * sets emptied, then no_new_privs. An exec can give nothing back, not
 * even as uid 0 inside, nor through file capabilities or set-user-ID
 * bits. */
void jail_drop_caps(void)
{
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		sr_fatal_sys(SR_EXIT_SYS, "unable to clear the ambient capabilities");
	jail_drop_effective_caps();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to set no_new_privs");
}
