/* forward.h - sr-jail --net-proxy: the jail's loopback door to a proxy
 * outside (forward.c). */
#ifndef FORWARD_H
#define FORWARD_H

#include "jail.h"

/* In PID 1, the root built and the capabilities dropped, before the
 * program starts: listen on 127.0.0.1 and ::1 at JAIL_NET_PORT and fork
 * the process that carries each connection to JAIL_NET_SOCKET. Fatal
 * when the port cannot be had. */
void jail_forward_start(const struct jail *j);

#endif
