/*
 * userlimit.h -- users' own limits as a config gives them:
 * "alice:8, bob:2" (user:N pairs, separated by blanks or commas), kept
 * as "alice:8,bob:2" for the core (node.h, max_running_of).
 */
#ifndef VOLERY_USERLIMIT_H
#define VOLERY_USERLIMIT_H

#include <stddef.h>

/* value, canonical, into out (size bytes): 0, or -1 if it is not such a
 * list or does not fit. */
int	userlimit_parse(const char *value, char *out, size_t size);

#endif
