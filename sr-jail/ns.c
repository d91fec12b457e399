/* ns.c - identities and namespaces. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/keyctl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jail.h"
#include "ns.h"
#include "sr.h"

/* Started by root, the jail never holds host root's file access: drop to
 * nobody (65534:65534, no supplementary groups) before anything else. */
static void drop_root(void)
{
	uid_t r, e, s;
	if (getresuid(&r, &e, &s) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to read the user ids");
	if (r != 0 && e != 0 && s != 0)
		return;
	if (setgroups(0, NULL) < 0 ||
	    setresgid(JAIL_NOBODY, JAIL_NOBODY, JAIL_NOBODY) < 0 ||
	    setresuid(JAIL_NOBODY, JAIL_NOBODY, JAIL_NOBODY) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to drop root to uid %d", JAIL_NOBODY);
	if (getresuid(&r, &e, &s) < 0 || r == 0 || e == 0 || s == 0)
		sr_fatal(SR_EXIT_SYS, "unable to drop root: still uid 0");
}

/* Settle the host identity and, unless asked otherwise, the same ids
 * inside. */
void jail_identity(struct jail *j)
{
	drop_root();
	j->host_uid = geteuid();
	j->host_gid = getegid();
	if (!j->uid_set)
		j->uid = j->host_uid;
	if (!j->gid_set)
		j->gid = j->host_gid;
}

/* When whoever started sr-jail dies, sr-jail dies, and with it the jail. */
void jail_die_with_parent(void)
{
	pid_t parent = getppid();
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to set the parent-death signal");
	if (getppid() != parent)
		sr_fatal(SR_EXIT_SYS, "parent died during start-up");
}

static int sysctl_is(const char *path, const char *want)
{
	char *v = sr_read_file(path, 64, NULL);
	int is = v && strcmp(v, want) == 0;
	free(v);
	return is;
}

/* Why the kernel may refuse an unprivileged user namespace, by sysctl. */
static const char *userns_hint(void)
{
	if (sysctl_is("/proc/sys/kernel/unprivileged_userns_clone", "0\n"))
		return " (unprivileged user namespaces are disabled: "
		       "sysctl kernel.unprivileged_userns_clone=1 enables them)";
	if (sysctl_is("/proc/sys/user/max_user_namespaces", "0\n"))
		return " (user namespaces are disabled: "
		       "sysctl user.max_user_namespaces=15000 enables them)";
	if (sysctl_is("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1\n"))
		return " (AppArmor restricts unprivileged user namespaces: "
		       "sysctl kernel.apparmor_restrict_unprivileged_userns=0, "
		       "or an AppArmor profile for sr-jail with 'userns,')";
	return "";
}

void jail_unshare(const struct jail *j)
{
	int flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
		    CLONE_NEWUTS | CLONE_NEWCGROUP;
	if (!j->share_net)
		flags |= CLONE_NEWNET;
	if (unshare(flags) < 0) {
		int e = errno;
		const char *hint = userns_hint();
		errno = e;
		sr_fatal_sys(SR_EXIT_SYS, "unable to create the namespaces "
			     "(user, mount, pid, ipc, uts, cgroup%s)%s",
			     j->share_net ? "" : ", net", hint);
	}
}

static void write_proc(const char *path, const char *text)
{
	if (sr_write_str(path, text) < 0) {
		int e = errno;
		const char *hint = userns_hint();
		errno = e;
		sr_fatal_sys(SR_EXIT_SYS, "unable to write %s%s", path, hint);
	}
}

/* One id each: the caller's host uid/gid appear as j->uid/j->gid. After
 * a drop from root the process is not dumpable, which makes /proc/self
 * root's: dumpable just long enough to write the maps. */
void jail_write_maps(const struct jail *j)
{
	char buf[64];
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to make sr-jail dumpable");
	write_proc("/proc/self/setgroups", "deny");
	snprintf(buf, sizeof buf, "%u %u 1\n", (unsigned)j->uid, (unsigned)j->host_uid);
	write_proc("/proc/self/uid_map", buf);
	snprintf(buf, sizeof buf, "%u %u 1\n", (unsigned)j->gid, (unsigned)j->host_gid);
	write_proc("/proc/self/gid_map", buf);
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to make sr-jail non-dumpable");
	jail_note(j, "uid %u gid %u inside are host uid %u gid %u", (unsigned)j->uid,
		  (unsigned)j->gid, (unsigned)j->host_uid, (unsigned)j->host_gid);
}

static void loopback_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to open a socket to set up lo");
	memset(&ifr, 0, sizeof ifr);
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to read the flags of lo");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to bring up lo");
	close(s);
}

void jail_hostname(const struct jail *j)
{
	const char *name = j->hostname ? j->hostname : JAIL_HOSTNAME;
	if (sethostname(name, strlen(name)) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to set the hostname");
}

void jail_loopback(const struct jail *j)
{
	if (!j->share_net)
		loopback_up();
}

/* The caller's session keyring is inherited across fork and exec, and
 * nothing else namespaces it: PID 1 joins a new, empty one. (The user
 * keyrings are per user namespace already.) */
void jail_new_keyring(void)
{
	/* EPERM: an outer jail's filter refuses the keyring calls (a jail
	 * nested with --allow-userns): the keyrings are out of reach already. */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0 &&
	    errno != ENOSYS && errno != EPERM)
		sr_fatal_sys(SR_EXIT_SYS, "unable to join a new session keyring");
}

/* No nested user namespaces: they would hand the program a full set of
 * capabilities again (over a copy of its mounts, locked, but still a
 * large kernel attack surface). The limit is per user namespace. */
void jail_limit_userns(const struct jail *j)
{
	if (j->allow_userns)
		return;
	if (sr_write_str("/proc/sys/user/max_user_namespaces", "0\n") < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to forbid nested user namespaces "
			     "(user.max_user_namespaces)");
}

/* The kernel counts inotify instances and watches (and fanotify groups and
 * marks) per user, across all of the user's programs: a payload that took
 * them all would make the user's own programs on the host fail (EMFILE,
 * ENOSPC). The count is kept per user namespace and checked at every level
 * up to the host's, so a lower limit in the jail's namespace bounds what
 * the jail, and any namespace inside it, can take: an eighth of the user's,
 * and at most 8192 (fs.inotify.max_user_instances 128 leaves the jail 16).
 * The program has no capability to raise it. A limit the kernel does not
 * have is passed over. */
static const char *const ucounts[][2] = {
	{ "/proc/sys/fs/inotify/max_user_instances", "/proc/sys/user/max_inotify_instances" },
	{ "/proc/sys/fs/inotify/max_user_watches", "/proc/sys/user/max_inotify_watches" },
	{ "/proc/sys/fs/fanotify/max_user_groups", "/proc/sys/user/max_fanotify_groups" },
	{ "/proc/sys/fs/fanotify/max_user_marks", "/proc/sys/user/max_fanotify_marks" },
};

void jail_limit_ucounts(void)
{
	for (size_t i = 0; i < sizeof ucounts / sizeof *ucounts; i++) {
		char *host = sr_read_file(ucounts[i][0], 64, NULL), *ours;
		unsigned long long n = host ? strtoull(host, NULL, 10) : 0, cur = 0;
		free(host);
		ours = n ? sr_read_file(ucounts[i][1], 64, NULL) : NULL;
		if (!ours)
			continue;            /* no such count here */
		cur = strtoull(ours, NULL, 10);
		free(ours);
		if (!n || n > cur)
			n = cur;             /* the tighter of the two */
		char v[32];
		n = n / 8 ? n / 8 : 1;
		snprintf(v, sizeof v, "%llu\n", n < 8192 ? n : 8192);
		if (sr_write_str(ucounts[i][1], v) < 0)
			sr_fatal_sys(SR_EXIT_SYS, "unable to limit %s in the jail", ucounts[i][1]);
	}
}
