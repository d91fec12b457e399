/* exec.h - sr-jail: the payload started by PID 1 (exec.c). */
#ifndef EXEC_H
#define EXEC_H

#include "jail.h"

void jail_close_fds(const struct jail *j);
pid_t jail_spawn(const struct jail *j);

#endif
