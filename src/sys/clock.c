/*
 * clock.c -- the wall clock, and the node's clock: monotonic, anchored
 * to the wall clock once (clock.h).
 */
#include <time.h>

#include "clock.h"

/* The node's clock runs on while the host sleeps (volery sleep):
 * CLOCK_MONOTONIC stops in a suspend, and a desktop back from a night's
 * sleep would stamp its datagrams hours behind its peers' clocks. */
#ifdef CLOCK_BOOTTIME
#define NODE_CLOCK	CLOCK_BOOTTIME
#else
#define NODE_CLOCK	CLOCK_MONOTONIC
#endif

static int64_t
ns(clockid_t id)
{
	struct timespec	ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t
clock_wall_ms(void)
{
	return ns(CLOCK_REALTIME) / 1000000;
}

/* In nanoseconds until the end, so that the node's clock is the wall
 * clock to the microsecond, not to one ms more per rounding: nodes
 * compare each other's stamps (an election's older candidacy). */
int64_t
clock_node_ns(void)
{
	static int64_t	offset;		/* wall - NODE_CLOCK, at the anchor */
	static int	anchored;

	if (!anchored) {
		offset = ns(CLOCK_REALTIME) - ns(NODE_CLOCK);
		anchored = 1;
	}
	return ns(NODE_CLOCK) + offset;
}

int64_t
clock_node_ms(void)
{
	return clock_node_ns() / 1000000;
}
