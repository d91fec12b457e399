/* filter.h - sr-jail: its own seccomp filter (filter.c). */
#ifndef FILTER_H
#define FILTER_H

#include "jail.h"

/* After no_new_privs, refuse TIOCSTI/TIOCLINUX, AF_VSOCK (unless
 * --share-net) and the keyring calls. */
void jail_filter(const struct jail *j);

#endif
