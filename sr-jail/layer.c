/* layer.c - sr-jail --rootfs-layer LAYER: what a workspace added to a
 * read-only root file system (packages, say), kept apart from it.
 *
 * The jail's system paths (/usr, /bin, /lib*, /sbin, /etc's basics) come
 * from a read-only overlay: LAYER's files over --rootfs's, LAYER winning,
 * its whiteouts (as overlayfs keeps them with userxattr) hiding what is
 * below. Neither directory is written: the overlay has no upper layer.
 * Both are opened following no link (as --rootfs and --bind are) and given
 * to overlayfs by those fds, so no name is looked up twice. The overlay
 * is mounted over the --rootfs directory inside the jail's private mount
 * namespace, before pivot_root, and is then read as --rootfs is (plan.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "layer.h"
#include "plan.h"
#include "sr.h"

static void layer_set(int fs, unsigned cmd, const char *key, const char *val,
		      const char *what)
{
	if (syscall(SYS_fsconfig, fs, cmd, key, val, 0) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to layer %s over the --rootfs (%s)", what,
			     key ? key : "create");
}

int jail_open_system(const char *rootfs, const char *layer)
{
	int rfd = jail_open_rootfs(rootfs);
	if (!layer)
		return rfd;
	int lfd = jail_open_rootfs_layer(layer);
	char lower[64];
	snprintf(lower, sizeof lower, "/proc/self/fd/%d:/proc/self/fd/%d", lfd, rfd);
	int fs = (int)syscall(SYS_fsopen, "overlay", FSOPEN_CLOEXEC);
	if (fs < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to layer %s over the --rootfs (overlayfs)",
			     layer);
	layer_set(fs, FSCONFIG_SET_STRING, "lowerdir", lower, layer);
	layer_set(fs, FSCONFIG_SET_FLAG, "userxattr", NULL, layer);
	layer_set(fs, FSCONFIG_CMD_CREATE, NULL, NULL, layer);
	int mfd = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC,
			       MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (mfd < 0 || move_mount(mfd, "", rfd, "",
				  MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		sr_fatal_sys(SR_EXIT_SYS, "unable to mount %s over the --rootfs", layer);
	close(fs);
	close(lfd);
	close(rfd);
	return mfd;
}
