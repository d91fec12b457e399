/* forward.h - sr-jail --net-proxy and --publish: the jail's doors out, to
 * a proxy, and in, to a port of the program's (forward.c). */
#ifndef FORWARD_H
#define FORWARD_H

#include "jail.h"

/* In PID 1, the root built and the capabilities dropped, before the
 * program starts: for --net-proxy, listen on 127.0.0.1 and ::1 at
 * JAIL_NET_PORT (fatal when the port cannot be had); then fork the
 * process that carries each connection to JAIL_NET_SOCKET, and each of
 * --publish's to the program's port. */
void jail_forward_start(const struct jail *j);

#endif
