/* jail.h - sr-jail: the rootless user-namespace jail. */
#ifndef JAIL_H
#define JAIL_H

#include <signal.h>
#include <termios.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/types.h>

#include "sr.h"

#define JAIL_HOME "/home/sandbox"
#define JAIL_PATH "/usr/local/bin:/usr/bin:/bin"
#define JAIL_HOSTNAME "sandbox"
#define JAIL_TMPFS_SIZE (64ULL << 20)
#define JAIL_NOBODY 65534           /* host identity when started by root */
#define JAIL_PROG_DIR "/run/sr-jail"   /* where a program outside the view is bound */

/* A mount asked for on the command line, in order. */
enum mkind { MK_BIND, MK_RO_BIND, MK_TMPFS };
struct mreq {
	enum mkind kind;
	const char *src; /* host path (binds) */
	const char *dst; /* absolute path inside the jail */
	uint64_t size;   /* tmpfs; a --bind's --quota (0: none) */
	uint64_t inodes; /* a --bind's --quota-inodes (0: none) */
};

/* A --bind with --quota, kept by PID 1 for after the run (quota.c). */
struct quota {
	const char *dst;
	uint64_t cap;           /* the whole directory's size, at most */
	uint64_t inodes;        /* and its inodes (0: not capped) */
	struct sr_usage used;   /* what it held when the run started */
	int host_fd;            /* the host directory, opened before pivot_root */
	int upper_fd;           /* the root of the tmpfs holding the upper layer */
	int cache_fd;           /* --quota-cache, or -1 */
};

/* An environment change asked for on the command line, in order. */
enum ekind { EK_SET, EK_UNSET, EK_KEEP };
struct envop {
	enum ekind kind;
	const char *key, *val;
};

struct jail {
	/* from the command line */
	struct mreq *mounts;
	size_t nmounts;
	struct envop *envops;
	size_t nenvops;
	int *keep;
	size_t nkeep;
	const char *chdir, *hostname;
	uint64_t tmp_size, home_size, shm_size;
	uid_t uid;              /* identity inside */
	gid_t gid;
	int uid_set, gid_set;
	int share_net, allow_userns, verbose;
	char **argv;            /* prog [args...] */
	struct quota *quotas;   /* one per --bind with --quota */
	size_t nquotas;
	const char *quota_cache;        /* --quota-cache FILE */

	/* worked out on the host side */
	uid_t host_uid;
	gid_t host_gid;
	char *prog_path;        /* absolute, resolved with the caller's PATH */
	int prog_fd;            /* open on prog_path, O_CLOEXEC */
	char **envp;
	sigset_t oldmask;       /* the caller's signal mask, for the payload */
	int sync_fd;            /* PID 1's end of the socket pair with the outer sr-jail */
	mode_t umask;           /* the caller's */
	int tty_fd;             /* the first of 0-2 that is a terminal, or -1 */
	struct termios tty;     /* its settings before the jail */
};

/* opts.c */
void jail_parse(struct jail *j, int argc, char **argv);

/* ns.c */
void jail_identity(struct jail *j);
void jail_die_with_parent(void);
void jail_unshare(const struct jail *j);
void jail_write_maps(const struct jail *j);
void jail_hostname(const struct jail *j);
void jail_loopback(const struct jail *j);
void jail_limit_userns(const struct jail *j);
void jail_limit_ucounts(void);
void jail_new_keyring(void);

/* mounts.c */
#define JAIL_RO (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)
#define JAIL_RW (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)
/* Clone the mount tree at path (open_tree, recursive, detached) and set
 * attr (MOUNT_ATTR_*) on all of it; fatal, naming what, on failure. */
int jail_clone_tree(int dfd, const char *path, int flags, uint64_t attr,
		    const char *what);
void jail_build_root(struct jail *j);
/* Create DST's parent directories inside the new root (mkdir -p). */
void jail_mkparents(const char *dst);

/* The root is built in two halves: steps are planned while the host is in
 * view (host paths opened as detached mount trees), then carried out
 * after pivot_root, every destination resolved inside the new root. */
enum skind { S_TREE, S_LINK, S_TMPFS, S_FILE, S_OVERLAY };
struct step {
	enum skind kind;
	const char *dst;     /* path inside the new root */
	int fd;              /* S_TREE: detached mount from open_tree */
	int isdir;           /* S_TREE: directory or file mount point */
	const char *text;    /* S_LINK target, S_FILE contents */
	uint64_t size;       /* S_TMPFS */
	unsigned mode;       /* S_TMPFS */
	unsigned long flags; /* S_TMPFS mount flags */
	struct quota *quota; /* S_OVERLAY: fd is the lower layer, size the upper's */
};
struct plan {
	struct step *v;
	size_t n, cap;
};
struct step *plan_add(struct plan *p, enum skind kind, const char *dst);
/* Plan host path src at dst: a symlink is copied, anything else becomes
 * a recursive bind with the MOUNT_ATTR_* bits in attr set. A missing src
 * is skipped when optional, fatal otherwise. */
void plan_host(struct plan *p, const char *src, const char *dst,
	       uint64_t attr, int optional);
void plan_host_target(struct plan *p, const char *src, const char *dst, uint64_t attr);

/* Open a --bind source following no link: an O_PATH fd; fatal with why. */
int jail_open_user(const char *src);

/* quota.c: a --bind with --quota is an overlay: the host directory below,
 * read-only, and a size-capped tmpfs above; PID 1 copies the upper layer
 * back onto the host directory when every process of the jail is gone. */
void plan_quota(struct plan *p, struct jail *j, const struct mreq *m);
void jail_mount_overlay(const struct step *s);
/* In PID 1 after the run: say when a quota was reached, apply the changes. */
void jail_quota_finish(const struct jail *j);

/* etc.c */
void jail_plan_etc(struct plan *p, const struct jail *j);
const char *jail_user_name(const struct jail *j);

/* caps.c */
void jail_drop_bounding(void);
void jail_drop_caps(void);
void jail_drop_effective_caps(void);

/* env.c */
void jail_build_env(struct jail *j);

/* prog.c: the program, found on the host and placed in the new root */
void jail_resolve_prog(struct jail *j);
/* Building the root: a read-only bind of the program, where the new root
 * does not show it already. */
void jail_place_prog(const struct jail *j);
const char *jail_prog_inside(const struct jail *j);

/* exec.c */
void jail_close_fds(const struct jail *j);
pid_t jail_spawn(const struct jail *j);

/* filter.c: after no_new_privs, refuse TIOCSTI/TIOCLINUX, AF_VSOCK
 * (unless --share-net) and the keyring calls. */
void jail_filter(const struct jail *j);

/* init.c */
/* In the outer sr-jail: the settings of a terminal on fd 0-2, saved before
 * the jail starts and put back when it ends (raw mode, no echo or a
 * changed size made inside do not outlive the run). */
void jail_save_tty(struct jail *j);
void jail_restore_tty(const struct jail *j);
/* In the outer sr-jail: the program died of a signal, die of it too. */
void jail_die_like(int status) __attribute__((noreturn));
void jail_block_signals(struct jail *j);
/* term_ends: a SIGTERM from outside is not passed on but returned, as
 * the wait status of a death by SIGTERM (PID 1 with --quota). */
int jail_wait(pid_t child, int outside_only, int term_ends);
void jail_init(struct jail *j) __attribute__((noreturn));

/* What --verbose says: no function up in main.c for the layers below
 * to call. */
#define jail_note(j, ...) \
	do { \
		if ((j)->verbose) \
			sr_note(__VA_ARGS__); \
	} while (0)

#endif
