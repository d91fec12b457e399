/* forward.h - sr-jail --net-proxy and --publish: the jail's doors out, to
 * a proxy, and in, to a port of the program's (forward.c). */
#ifndef FORWARD_H
#define FORWARD_H

#include "jail.h"

/* In PID 1, the root built and the capabilities dropped, before the
 * program starts: for --net-proxy, listen on 127.0.0.1 and ::1 at
 * JAIL_NET_PORT (fatal when the port cannot be had); then fork the
 * process that carries each connection to JAIL_NET_SOCKET, and each of
 * --publish's to the program's port. With --net-proxy alone, the fork
 * waits for the first connection out: the doors raise SIGIO in PID 1,
 * which calls jail_forward_due. */
void jail_forward_start(struct jail *j);
/* In PID 1, on SIGIO: a connection waits at a door out whose forwarder
 * is not started yet: start it (a no-op otherwise). */
void jail_forward_due(struct jail *j);

#endif
