/* etc.h - sr-jail: the jail's /etc, added to the plan (etc.c). */
#ifndef ETC_H
#define ETC_H

#include "plan.h"
#include "jail.h"

void jail_plan_etc(struct plan *p, const struct jail *j);
const char *jail_user_name(const struct jail *j);

#endif
