/* init.h - sr-jail: the outer sr-jail's waiting, and PID 1 (init.c). */
#ifndef INIT_H
#define INIT_H

#include "jail.h"

/* In the outer sr-jail: the settings of a terminal on fd 0-2, saved before
 * the jail starts and put back when it ends (raw mode, no echo or a
 * changed size made inside do not outlive the run). */
void jail_save_tty(struct jail *j);
void jail_restore_tty(const struct jail *j);
void jail_block_signals(struct jail *j);
/* term_ends: a SIGTERM from outside is not passed on but returned, as
 * the wait status of a death by SIGTERM (PID 1 with --quota). */
/* ctl: PID 1's jail, whose --control it serves meanwhile; NULL. */
int jail_wait(pid_t child, int outside_only, int term_ends, struct jail *ctl);
void jail_init(struct jail *j) __attribute__((noreturn));

#endif
