/* caps.h - sr-jail: the capabilities dropped (caps.c). */
#ifndef CAPS_H
#define CAPS_H


void jail_drop_bounding(void);
void jail_drop_caps(void);
void jail_drop_effective_caps(void);

#endif
