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
/* In PID 1 after the run: say when a quota was reached, apply the changes
 * (with --control: those made since the last apply). */
void jail_quota_finish(struct jail *j);
/* In PID 1 while the program runs (--control), every other process of the
 * jail stopped: the changes since the last apply applied. 0, or -1 with
 * why; *full: a quota's tmpfs is full (writes past it fail). */
int jail_quota_apply_live(struct jail *j, char *why, size_t len, int *full);

/* --view-from: the view's tmpfs was full (see say_reached). */
void jail_quota_view_full(const struct jail *j);

/* --view-from: its quota applied into dir (-1: as it was). */
void jail_quota_retarget(struct jail *j, int dir);

#endif
