/*
 * ahead.c -- a race before the slot frees (ahead.h).
 *
 * A race's window (a few milliseconds) is most of what a short task
 * costs a node: it waits, its slot empty, for rival claims.  So a node
 * whose every slot runs a short task races for the next a window before
 * the run it started last should end; what it wins it holds (dequeue.c)
 * and starts as the slot frees.  Only after a short run (one a batch
 * would take, so what it holds waits little), and one nothing depends
 * on: its end readies its dependents, which go first (confirm.c).  Not
 * past a window after the run should have ended: its estimate was
 * wrong, and the claims would only wait.
 */
#include <string.h>

#include "nodestate.h"

void
ahead_started(struct node *n, const struct task *t, int64_t now)
{
	struct ahead	*a = &n->ahead;
	int64_t		 cost = placement_batch_cost(n, t);

	a->uuid[0] = '\0';
	if (cost < 0 ||
	    cost > claims_memory_ms(dequeue_claim_window_ms(n, now)))
		return;
	memcpy(a->uuid, t->uuid, sizeof a->uuid);
	a->end_at = now + cost - BATCH_START_MS;
}

int
ahead_now(struct node *n, int64_t now, int64_t window, int64_t *wake)
{
	struct ahead		*a = &n->ahead;
	const struct task	*t;
	int64_t			 at = a->end_at - window;

	if (a->uuid[0] == '\0' || now > a->end_at + window ||
	    (t = taskmap_find(&n->map, a->uuid)) == NULL ||
	    t->state != TASK_RUNNING ||
	    strcmp(t->running_on, n->cfg.name) != 0 ||
	    taskmap_has_dependents(&n->map, a->uuid))
		return 0;
	if (now >= at)
		return 1;
	if (*wake < 0 || at < *wake)
		*wake = at;
	return 0;
}
