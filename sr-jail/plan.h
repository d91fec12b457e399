/* plan.h - sr-jail: the mount plan, the lowest layer of the new root (plan.c). */
#ifndef PLAN_H
#define PLAN_H

#include <sys/mount.h>
#include "jail.h"

#define JAIL_RO (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)
#define JAIL_RW (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)

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
	int sysfd;           /* --rootfs: the directory system paths come from; -1: the host */
	const char *sysroot; /* its path, for messages */
};
struct step *plan_add(struct plan *p, enum skind kind, const char *dst);
/* Clone the mount tree at path (open_tree, recursive, detached) and set
 * attr (MOUNT_ATTR_*) on all of it; fatal, naming what, on failure. */
int jail_clone_tree(int dfd, const char *path, int flags, uint64_t attr,
		    const char *what);
/* A recursive bind of a system path (a symlink is followed). */
void plan_tree(struct plan *p, const char *src, const char *dst,
	       uint64_t attr, int isdir);
/* Plan system path src at dst: a symlink is copied, anything else becomes
 * a recursive bind with the MOUNT_ATTR_* bits in attr set. A missing src
 * is skipped when optional, fatal otherwise. src is the host's, or with
 * p->sysfd set the rootfs's, resolved inside it as if it were / (an
 * absolute link or .. on the way never leaves it). */
void plan_host(struct plan *p, const char *src, const char *dst,
	       uint64_t attr, int optional);
void plan_host_target(struct plan *p, const char *src, const char *dst, uint64_t attr);
/* Open --rootfs DIR (following no link): an O_PATH fd on the directory. */
int jail_open_rootfs(const char *dir);
/* The same for --rootfs-layer DIR. */
int jail_open_rootfs_layer(const char *dir);
/* Open a --bind source following no link: an O_PATH fd; fatal with why. */
int jail_open_user(const char *src);
/* A --bind or --ro-bind source, opened with jail_open_user. */
void plan_user_tree(struct plan *p, const char *src, const char *dst,
		    uint64_t attr);
void plan_tmpfs(struct plan *p, const char *dst, uint64_t size,
		unsigned mode, unsigned long flags);
/* Create DST's parent directories inside the new root (mkdir -p), and
 * forget what was made at or below dst once something is mounted there. */
void jail_mkparents(const char *dst);
void jail_mounted_on(const char *dst);

#endif
