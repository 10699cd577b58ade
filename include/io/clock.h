/*
 * clock.h -- the wall clock in milliseconds, the time of the shell (the
 * core is given `now`; it never reads a clock).
 */
#ifndef VOLERY_CLOCK_H
#define VOLERY_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t
clock_wall_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif
