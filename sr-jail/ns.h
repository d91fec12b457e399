/* ns.h - sr-jail: the namespaces, the identity maps, the limits set from outside (ns.c). */
#ifndef NS_H
#define NS_H

#include "jail.h"

void jail_identity(struct jail *j);
void jail_die_with_parent(void);
void jail_unshare(const struct jail *j);
void jail_write_maps(const struct jail *j);
void jail_hostname(const struct jail *j);
void jail_loopback(const struct jail *j);
void jail_limit_userns(const struct jail *j);
void jail_limit_ucounts(void);
void jail_new_keyring(void);

#endif
