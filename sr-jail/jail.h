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

struct seen;

#define JAIL_HOME "/home/sandbox"
#define JAIL_PATH "/usr/local/bin:/usr/bin:/bin"
#define JAIL_HOSTNAME "sandbox"
#define JAIL_TMPFS_SIZE (64ULL << 20)
#define JAIL_NOBODY 65534           /* host identity when started by root */
#define JAIL_PROG_DIR "/run/sr-jail"   /* where a program outside the view is bound */
#define JAIL_NET_SOCKET "/run/sr-net.sock"   /* --net-proxy's socket, inside */
#define JAIL_NET_PORT 3128                   /* and its door on the jail's loopback */

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
	struct seen *seen;      /* --control: what the applies so far carried (seen.h) */
	int view_fd;            /* --control: a detached clone of the overlay, or -1 */
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
	int report_fd;          /* --report-fd: PID 1's findings (quota.c), or -1 */
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
	const char *quota_changes;      /* --quota-changes FILE */
	int changes_fd;                 /* it, opened by PID 1 (quota.c), or -1 */
	const char *rootfs;             /* --rootfs DIR: the system comes from there */
	const char *rootfs_layer;       /* --rootfs-layer DIR: read-only over it (layer.c) */
	const char *control;            /* --control PATH: applies on request */
	const char *net_proxy;          /* --net-proxy SOCKET: the way out (forward.c) */
	const char *publish;            /* --publish PORT:PATH: the way in (forward.c) */
	unsigned publish_port;
	const char *view_from;          /* --view-from SOCKET: another jail's view */

	/* worked out on the host side */
	uid_t host_uid;
	gid_t host_gid;
	char *prog_path;        /* absolute, resolved with the caller's PATH */
	int prog_fd;            /* open on prog_path, O_CLOEXEC */
	char **envp;
	sigset_t oldmask;       /* the caller's signal mask, for the payload */
	int sync_fd;            /* PID 1's end of the socket pair with the outer sr-jail */
	int control_fd;         /* --control's listening socket, or -1 */
	int control_dir;        /* its directory, or -1 */
	const char *control_name;       /* its name there */
	int publish_fd;                 /* --publish's listening socket, or -1 */
	int net_fd[2];                  /* --net-proxy's doors on 127.0.0.1 and ::1,
					   PID 1's until the forwarder is due, or -1 */
	int publish_dir;                /* its directory, or -1 */
	const char *publish_name;       /* its name there */
	int view_dir;           /* --view-from: its socket's directory (O_PATH), or -1 */
	const char *view_name;  /* its name there */
	mode_t umask;           /* the caller's */
	int tty_fd;             /* the first of 0-2 that is a terminal, or -1 */
	struct termios tty;     /* its settings before the jail */
};

/* Each file's declarations are in a header of its own, named after it:
 * this one holds only the types they share. The layers, top first (a file
 * calls and includes only what is below it; scripts/layers.conf):
 *   main.c; init.c; mounts.c exec.c env.c control.c forward.c; etc.c prog.c quota.c;
 *   plan.c; opts.c ns.c caps.c filter.c seen.c sock.c. */

/* What --verbose says: no function up in main.c for the layers below
 * to call. */
#define jail_note(j, ...) \
	do { \
		if ((j)->verbose) \
			sr_note(__VA_ARGS__); \
	} while (0)

#endif
