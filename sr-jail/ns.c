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

static const char *userns_hint(int e);
static int in_initial_userns(void);

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
		sr_fatal_sys(SR_EXIT_SYS, "unable to drop root to uid %d%s", JAIL_NOBODY,
			     in_initial_userns() ? "" : " (uid 0 of a user namespace that cannot "
			     "change ids: run sr-jail as an ordinary user there)");
	if (getresuid(&r, &e, &s) < 0 || r == 0 || e == 0 || s == 0)
		sr_fatal(SR_EXIT_SYS, "unable to drop root: still uid 0");
}

/* Where a sysctl forbids the user namespace, sr-jail cannot run at all:
 * said first, before anything else could fail for it (dropping root to an
 * id that is not mapped, say). AppArmor's restriction depends on the
 * profile, so it is said when unshare fails. */
static void userns_allowed(const struct jail *j)
{
	const char *hint = userns_hint(0);
	if (*hint && !strstr(hint, "AppArmor"))
		sr_fatal(SR_EXIT_SYS, "unable to create the namespaces "
			 "(user, mount, pid, ipc, uts, cgroup%s)%s", j->share_net ? "" : ", net", hint);
}

/* Settle the host identity and, unless asked otherwise, the same ids
 * inside. */
void jail_identity(struct jail *j)
{
	userns_allowed(j);
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

/* Is this the initial user namespace (where a sysctl is the host's)? */
static int in_initial_userns(void)
{
	return sysctl_is("/proc/self/uid_map", "         0          0 4294967295\n");
}

/* What stops an unprivileged user namespace here, and what fixes it, in
 * words for the end of one line (sr-jail(1), DIAGNOSTICS); "" when no
 * sysctl explains it. e is unshare's errno, or 0 after a later step. */
static const char *userns_hint(int e)
{
	if (sysctl_is("/proc/sys/kernel/unprivileged_userns_clone", "0\n"))
		return ": unprivileged user namespaces are off (kernel.unprivileged_userns_clone=0); "
		       "as root: sysctl -w kernel.unprivileged_userns_clone=1, and to keep it "
		       "echo kernel.unprivileged_userns_clone=1 >/etc/sysctl.d/90-sr-userns.conf";
	if (sysctl_is("/proc/sys/user/max_user_namespaces", "0\n"))
		return in_initial_userns() ?
		       ": user namespaces are off (user.max_user_namespaces=0); as root: "
		       "sysctl -w user.max_user_namespaces=15000, and to keep it "
		       "echo user.max_user_namespaces=15000 >/etc/sysctl.d/90-sr-userns.conf" :
		       ": user namespaces are off in the user namespace sr-jail runs in "
		       "(user.max_user_namespaces=0 there): as its owner, sysctl -w "
		       "user.max_user_namespaces=15000 in it (made by an outer sr-jail: give "
		       "that one --allow-userns), or run sr-jail outside it";
	if ((e == 0 || e == EACCES || e == EPERM) &&
	    sysctl_is("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1\n"))
		return ": AppArmor restricts unprivileged user namespaces "
		       "(kernel.apparmor_restrict_unprivileged_userns=1); as root, in sr's source "
		       "tree: make install install-apparmor (a profile letting the installed sr-jail "
		       "create them), or sysctl -w kernel.apparmor_restrict_unprivileged_userns=0";
	if (e == ENOSPC)
		return ": the user namespaces allowed are all in use "
		       "(user.max_user_namespaces, here or in an enclosing namespace)";
	if (e == EUSERS)
		return ": user namespaces are nested 32 deep already (the kernel's limit)";
	if (e == EPERM)
		return ": no sysctl forbids it, so what runs sr-jail does (a container's seccomp "
		       "policy, a chroot): run sr-jail outside it, or let it allow user namespaces";
	return "";
}

/* Ubuntu's AppArmor, where the profile is missing, lets the namespace be
 * made but confines it in unprivileged_userns, which denies every
 * capability in it: every later step would fail for a reason it cannot
 * name. Said here, once. */
static void check_apparmor_userns(void)
{
	char *label = sr_read_file("/proc/self/attr/apparmor/current", 256, NULL);
	if (!label)
		label = sr_read_file("/proc/self/attr/current", 256, NULL);
	int confined = label && strncmp(label, "unprivileged_userns", 19) == 0;
	free(label);
	if (confined)
		sr_fatal(SR_EXIT_SYS, "unable to use the new user namespace: AppArmor confined it "
			 "in unprivileged_userns (no capabilities)%s",
			 userns_hint(0)[0] ? userns_hint(0) :
			 ": as root, in sr's source tree: make install install-apparmor");
}

void jail_unshare(const struct jail *j)
{
	int flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
		    CLONE_NEWUTS | CLONE_NEWCGROUP;
	if (!j->share_net)
		flags |= CLONE_NEWNET;
	if (unshare(flags) < 0) {
		int e = errno;
		sr_fatal(SR_EXIT_SYS, "unable to create the namespaces "
			 "(user, mount, pid, ipc, uts, cgroup%s): %s%s",
			 j->share_net ? "" : ", net", strerror(e), userns_hint(e));
	}
	check_apparmor_userns();
}

static void write_proc(const char *path, const char *text)
{
	if (sr_write_str(path, text) < 0) {
		int e = errno;
		sr_fatal(SR_EXIT_SYS, "unable to write %s: %s%s", path, strerror(e), userns_hint(0));
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
