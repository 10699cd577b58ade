/*
 * arraycap.c -- the limit of an array's tasks running at once
 * (arraycap.h).  Two nodes racing for the last places of an array race
 * as for one task: each counts the other's claims that precede its own
 * by the dequeue rule (rules_dequeue_beats), so the later one stands
 * back.  A claim or STATE lost on the way can let one run too many for a
 * while; that is the price of no central counter, as for duplicate runs.
 */
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "arraycap.h"

struct same_array {
	struct node		*n;
	const struct task	*t;
};

/* A Ready task of t's array, other than t: one a claim may be taking. */
static int
ready_sibling(const char *uuid, void *arg)
{
	struct same_array	*a = arg;
	const struct task	*u;

	if (strcmp(uuid, a->t->uuid) == 0)
		return 0;
	u = taskmap_find(&a->n->map, uuid);
	return u != NULL && u->state == TASK_READY &&
	    strcmp(u->array, a->t->array) == 0;
}

int
arraycap_full(struct node *n, const struct task *t, int64_t ts, int64_t now)
{
	struct same_array	 a = { n, t };
	struct task		**v;
	size_t			 i, count;
	int			 busy = 0;

	if (t->array_max <= 0 || t->array[0] == '\0')
		return 0;
	if ((v = runwatch_running(n, &count)) == NULL && count > 0)
		return 1;	/* out of memory: take nothing of it */
	for (i = 0; i < count; i++)
		busy += v[i]->state == TASK_RUNNING &&
		    strcmp(v[i]->array, t->array) == 0 && v[i] != t;
	free(v);
	if (busy >= t->array_max)
		return 1;
	busy += dequeue_claims_beating_where(n, ts, now, ready_sibling, &a);
	return busy >= t->array_max;
}
