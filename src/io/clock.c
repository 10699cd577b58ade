/*
 * clock.c -- the wall clock, and the node's clock: monotonic, anchored
 * to the wall clock once (clock.h).
 */
#include <time.h>

#include "clock.h"

static int64_t
ms(clockid_t id)
{
	struct timespec	ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
clock_wall_ms(void)
{
	return ms(CLOCK_REALTIME);
}

int64_t
clock_node_ms(void)
{
	static int64_t	wall0 = -1, mono0;

	if (wall0 < 0) {
		wall0 = ms(CLOCK_REALTIME);
		mono0 = ms(CLOCK_MONOTONIC);
	}
	return wall0 + (ms(CLOCK_MONOTONIC) - mono0);
}
