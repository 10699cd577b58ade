/*
 * ratelimit.h -- a log line said at most once per period, however often
 * its cause comes (a flood of bad datagrams, of accept failures): the
 * line counts what it did not say.
 */
#ifndef VOLERY_RATELIMIT_H
#define VOLERY_RATELIMIT_H

#include <stdint.h>

#define RATELIMIT_MS 10000	/* the period of every such line */

/* Is a line due at now?  If so *last becomes now.  *last 0: never said. */
static inline int
ratelimit_due(int64_t *last, int64_t now)
{
	if (*last != 0 && now - *last < RATELIMIT_MS)
		return 0;
	*last = now;
	return 1;
}

#endif
