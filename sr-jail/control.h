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

#endif
