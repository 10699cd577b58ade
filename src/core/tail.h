/*
 * tail.h -- the last runs of a bag, replicated (<replicate_tail>N, the
 * WQR of Anglano et al. with replication threshold N).
 *
 * When no task waits and nodes stand idle, the node that took a task
 * (its taker: only it signs a task's origin) gives its tasks that should
 * end last a replica each, up to N copies running at once: a task of its
 * own (uuid derived from the task's, replica_of naming it) that idle
 * nodes race for as for any other, never on a node that runs a copy.
 * Each copy's end is confirmed like any task's; what follows is derived
 * alike on every node and certified like a dependent's end: a replica's
 * confirmed result ends its task Terminated with that result
 * ("tail-won:REPLICA"), and a task's confirmed end cancels its replicas
 * still going ("tail-done:TASK").  The task's own run and a replica's
 * end may contend: the vote keeps one (confirm.h), so one result is
 * accepted.  The runs a won race stops are the wasted CPU, counted here.
 */
#ifndef VOLERY_TAIL_H
#define VOLERY_TAIL_H

#include <stddef.h>
#include <stdint.h>

#include "task.h"

struct node;

struct tail {
	uint64_t	made;		/* replicas we made, as taker */
	uint64_t	won;		/* tasks we saw end by a replica's result */
	uint64_t	stopped;	/* our runs stopped: another copy won */
	int64_t		wasted_ms;	/* the time those runs had run */
};

/* Our counts, into node_status. */
struct node_status;
void	tail_status(const struct node *, struct node_status *);
/* The uuid of the tail's replica `index` of the task of uuid `of`: a
 * hash, so that every node finds a task's replicas without a list. */
void	tail_uuid(const char *of, int index, char out[UUID_STRLEN + 1]);
/* Is t a replica made for the tail (not one of --verify's)? */
int	tail_is_replica(const struct task *);
/* Housekeeping: replicas of our tasks, if the tail has come. */
void	tail_housekeeping(struct node *, int64_t now);
/* May t run here?  Not where a copy of it runs; if not, why. */
int	tail_admissible(const struct node *, const struct task *, char *why,
	    size_t whylen);
/* t's end is confirmed here: what follows for its copies. */
void	tail_settled(struct node *, const struct task *t, int64_t now,
	    int propose);
/* Does r's end in state follow from a copy's confirmed end we hold? */
int	tail_derived(const struct node *, const struct task *r,
	    enum task_state state);

#endif
