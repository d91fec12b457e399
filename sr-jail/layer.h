/* layer.h - sr-jail --rootfs-layer: a directory of the caller's over the --rootfs (layer.c). */
#ifndef LAYER_H
#define LAYER_H

/* The system's directory for the new root: --rootfs DIR alone (an O_PATH
 * fd on it), or with --rootfs-layer LAYER a read-only overlay of LAYER
 * over it, mounted over DIR in the jail's own mount namespace (the host
 * never sees it); an fd on the overlay's root. Fatal on failure. */
int jail_open_system(const char *rootfs, const char *layer);

#endif
