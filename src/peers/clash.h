/*
 * clash.h -- another node of the cluster has our name.  Names must be
 * unique: while the other is heard, this node takes no tasks (its
 * volunteer state is "clash"), says so in NODES, and logs it once.
 */
#ifndef VOLERY_CLASH_H
#define VOLERY_CLASH_H

#include <stddef.h>
#include <stdint.h>

struct event_base;

/* silence_ms: how long the other must be silent for the clash to be
 * over; changed() is called when it starts and when it ends. */
int	clash_init(struct event_base *, const char *name, int64_t silence_ms,
	    void (*changed)(void));
void	clash_close(void);
/* A datagram of our name, another incarnation, from `from` (peers.c). */
void	clash_heard(const char *from);
/* Whether a clash is on; the other's address into from if so. */
int	clash_active(char *from, size_t size);

#endif
