/* opts.h - sr-jail: the command line (opts.c). */
#ifndef OPTS_H
#define OPTS_H

#include "jail.h"

void jail_parse(struct jail *j, int argc, char **argv);

#endif
