/*
 * arraycap.c -- the limit of an array's tasks running at once
 * (arraycap.h).  Two nodes racing for the last places of an array race
 * as for one task: each counts the other's claims that precede its own
 * by the dequeue rule (rules_dequeue_beats), so the later one stands
 * back.  A claim lost or later than the window can still let one run
 * too many; as for duplicate runs, the runs started last then yield, as
 * soon as their nodes hear of the others: every node orders the array's
 * runs the same way (start stamp, then runner), and the first array_max
 * stay.
 */
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "arraycap.h"
#include "rules.h"

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

/* How many runs of t's array come before t's, in the order every node
 * sees: start stamp, then runner (rules_run_beats). */
static int
runs_before(struct task *const *v, size_t count, const struct task *t)
{
	size_t	i;
	int	before = 0;

	for (i = 0; i < count; i++)
		before += v[i] != t && v[i]->state == TASK_RUNNING &&
		    strcmp(v[i]->array, t->array) == 0 &&
		    rules_run_beats(v[i]->start_ms, v[i]->running_on,
		    t->start_ms, t->running_on);
	return before;
}

void
arraycap_heard(struct node *n, const struct task *run, int64_t now)
{
	struct task	**v, *t;
	size_t		  i, count;
	int		  before;

	if (run->state != TASK_RUNNING || run->array_max <= 0 ||
	    run->array[0] == '\0' || run_count(n) == 0 ||
	    (v = runwatch_running(n, &count)) == NULL)
		return;
	for (i = 0; i < count; i++) {
		t = v[i];
		if (t->run != RUN_ACTIVE || t->state != TASK_RUNNING ||
		    strcmp(t->array, run->array) != 0 ||
		    (before = runs_before(v, count, t)) < t->array_max)
			continue;
		outbox_log(&n->out, VLOG_NORMAL, "Task UUID{%s} name{%s} of "
		    "array %s yields on %s: %d of its runs started before, "
		    "its limit is %d; back to Ready", t->uuid, t->exec,
		    t->array, n->cfg.name, before, t->array_max);
		run_stop(n, t);
		cascade_make_ready(n, t, now);
		replicate_publish(n, t);
	}
	free(v);
}
