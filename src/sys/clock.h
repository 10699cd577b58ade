/*
 * clock.h -- the clocks of the shell (the core is given `now`; it never
 * reads a clock).
 */
#ifndef VOLERY_CLOCK_H
#define VOLERY_CLOCK_H

#include <stdint.h>

/* The wall clock in ms since the epoch: for what is compared with other
 * wall times (file access times, log stamps). */
int64_t	clock_wall_ms(void);

/*
 * The node's clock, the `now` the core is given: the wall clock when it
 * was first read, advanced by CLOCK_BOOTTIME from then on (monotonic,
 * and running on while the host is suspended).  Every deadline follows
 * it, so an NTP step neither freezes the node (back) nor expires every
 * timeout at once (forward); its stamps stay close to the wall clock,
 * which NTP only slews after a step, also after a night asleep.
 */
int64_t	clock_node_ms(void);
int64_t	clock_node_ns(void);	/* the same, finer: to arm timers */

#endif
