/* quota.h - sr-jail: a --bind with --quota (quota.c). */
#ifndef QUOTA_H
#define QUOTA_H

#include "plan.h"
#include "jail.h"

/* An overlay: the host directory below, read-only, and a size-capped
 * tmpfs above; PID 1 copies the upper layer back onto the host directory
 * when every process of the jail is gone. */
void plan_quota(struct plan *p, struct jail *j, const struct mreq *m);
void jail_mount_overlay(const struct step *s);
/* In PID 1 after the run: say when a quota was reached, apply the changes. */
void jail_quota_finish(const struct jail *j);

#endif
