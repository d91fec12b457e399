/* control.h - sr-jail --control: the changes of a --quota applied while
 * the program runs, on request (control.c). */
#ifndef CONTROL_H
#define CONTROL_H

#include "jail.h"

/* In the outer sr-jail, before the namespaces: the socket at --control's
 * path, listening (the caller's alone: mode 0600). Fatal on failure. */
void jail_control_listen(struct jail *j);
/* In the outer sr-jail, the jail ended: the socket removed. */
void jail_control_remove(const struct jail *j);
/* In PID 1, the root built: a connection raises SIGIO. */
void jail_control_arm(const struct jail *j);
/* In PID 1, the program started: connections made before the watch. */
void jail_control_pending(struct jail *j);
/* In PID 1, on SIGIO: each connection waiting is served. */
void jail_control_serve(struct jail *j);

/* In the outer sr-jail, before the namespaces: --view-from's jail, if
 * one serves it, asked to apply (fatal if it could not); the socket's
 * directory kept open for PID 1. */
void jail_view_open(struct jail *j);
/* In PID 1, the program ended: a directory descriptor of --view-from's
 * view, to apply through, or -1 when nothing serves it now. */
int jail_view_target(const struct jail *j);
/* In PID 1, after that apply: --view-from's jail asked to apply. 0 ok (or
 * it has ended), 1 ok but its tmpfs is full (writes past it failed), -1
 * not applied (said). */
int jail_view_apply(const struct jail *j);

#endif
