/* prog.h - sr-jail: the program, found on the host and placed in the new root (prog.c). */
#ifndef PROG_H
#define PROG_H

#include "jail.h"

void jail_resolve_prog(struct jail *j);
/* Building the root: a read-only bind of the program, where the new root
 * does not show it already. */
void jail_place_prog(const struct jail *j);
const char *jail_prog_inside(const struct jail *j);

#endif
