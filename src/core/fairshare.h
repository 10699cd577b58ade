/*
 * fairshare.h -- <order>fairshare</order>: among ready tasks of the same
 * urgency, those of users who used less of the pool lately go first (as
 * Slurm's fair-share factor and HTCondor's user priorities).  A user's
 * usage is the run time times cores of their ended tasks in the map,
 * each halved every fairshare_halflife_ms since it ended.  Every node
 * computes it from the same replicated records, relative to the latest
 * end among them, so every node ranks alike whatever its clock.
 */
#ifndef VOLERY_FAIRSHARE_H
#define VOLERY_FAIRSHARE_H

#include <stdint.h>

struct node;

struct fairshare {
	uint64_t	 gen;		/* the map's generation, computed at */
	uint64_t	 pushes;	/* and the queue's pushes */
	int		 valid;
};

/* Before the queue is read: the keys of its tasks from the users'
 * usage, again if any task changed or came into the queue since (the
 * map's generation, the queue's pushes: a task queued again by the
 * cascade alone changes no record). */
void	fairshare_refresh(struct node *);

#endif
