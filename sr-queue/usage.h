/* usage.h - sr-queue: below the commands and main.c (usage.c). */
#ifndef SQ_USAGE_H
#define SQ_USAGE_H

#include <sys/types.h>

void sq_print_usage(void);
extern mode_t sq_user_umask;    /* the caller's umask; sr-queue uses 077 */

#endif
