/*
 * voters.h -- which nodes answer a proposed end at once, and when its
 * proposer asks the others (voters.c).
 */
#ifndef VOLERY_VOTERS_H
#define VOLERY_VOTERS_H

#include <stdint.h>

#include "bounds.h"

#define VOTERS_ASKS	256	/* our proposals awaiting their first votes */
#define VOTERS_RANKED	64	/* live peers from which each draws alone */

struct node;
struct task;

struct voters {
	/* Our proposals, oldest first, each due to go to every voter if
	 * its first voters have not confirmed it by then. */
	struct voters_ask {
		char	 uuid[UUID_STRLEN + 1];
		int	 round;
		int64_t	 due;
	}		 ring[VOTERS_ASKS];
	unsigned	 first, n;
};

/*
 * Do we vote on t's end, heard first-hand from its proposer, at once?
 * Only a majority's worth of live members nearest the task does, and a
 * few more; the others vote when the proposer asks again.
 */
int	voters_first(const struct node *, const char *proposer,
	    const struct task *t);
/* We proposed t's end (confirm_propose): ask everyone a few windows on
 * if the first voters have not confirmed it. */
void	voters_asked(struct node *, const struct task *t, int64_t now);
/* When voters_tick must come next (-1: never). */
int64_t	voters_deadline(struct node *);
void	voters_tick(struct node *, int64_t now);

#endif
