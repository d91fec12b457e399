/* env.h - sr-jail: the payload's environment (env.c). */
#ifndef ENV_H
#define ENV_H

#include "jail.h"

void jail_build_env(struct jail *j);

#endif
