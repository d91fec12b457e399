/* mounts.h - sr-jail: the new root, planned and built (mounts.c). */
#ifndef MOUNTS_H
#define MOUNTS_H

#include "jail.h"

void jail_build_root(struct jail *j);

#endif
