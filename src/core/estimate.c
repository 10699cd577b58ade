/*
 * estimate.c -- expected run times and ends (node.h): what each task
 * type took on the pool (placement.c), scaled by the speed of the node
 * that runs it, or of an average node while it waits.
 *
 * A running task ends its expected run after its start; one overdue
 * ends when the rest of its progress would take.  A waiting task starts
 * when its last input is expected to end (or now), so its end is that
 * plus its run: queueing behind other work is not counted, which makes
 * it a lower bound on a full pool.  An end is final once it is.
 */
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"

/* Deeper chains than this are left without an estimate: a bound on the
 * walk, far past any workflow a person writes. */
#define ESTIMATE_DEPTH	64

static int
speed_of_runner(const struct node *n, const struct task *t)
{
	const struct peer	*p;
	int			 idx;

	if (t->running_on[0] == '\0')
		return SPEED_UNIT;	/* not placed yet: an average node */
	if (strcmp(t->running_on, n->cfg.name) == 0)
		return placement_speed(n);
	if ((idx = peertab_index(n, t->running_on)) < 0 ||
	    (p = peertab_at(n, idx)) == NULL || p->speed <= 0)
		return SPEED_UNIT;
	return p->speed;
}

int64_t
node_task_run_estimate(const struct node *n, const struct task *t)
{
	return placement_estimate(n, t->exec, speed_of_runner(n, t));
}

static int64_t
end_of(const struct node *n, const struct task *t, int64_t now,
    struct uuidmap *memo, int depth)
{
	const struct task	*up;
	int64_t			 run, start = now, end;
	int			 i;

	if (task_is_final(t->state))
		return t->end_ms;
	if (uuidmap_get(memo, t->uuid, &end))
		return end;
	if (depth > ESTIMATE_DEPTH || (run = node_task_run_estimate(n, t)) < 0)
		return -1;
	if (t->state == TASK_RUNNING) {
		end = t->start_ms + run;
		if (end < now)
			end = now + run * (100 - t->progress) / 100;
	} else {
		for (i = 0; i < t->ninputs; i++) {
			if ((up = taskmap_find(&n->map, t->inputs[i].from)) ==
			    NULL)
				continue;	/* retired: it ended */
			if ((end = end_of(n, up, now, memo, depth + 1)) < 0)
				return -1;
			if (end > start)
				start = end;
		}
		end = start + run;
	}
	(void)uuidmap_put(memo, t->uuid, end);	/* no memory: walk again */
	return end;
}

int64_t
node_task_end_estimate(const struct node *n, const struct task *t,
    int64_t now)
{
	struct uuidmap	memo;
	int64_t		end;

	memset(&memo, 0, sizeof memo);
	end = end_of(n, t, now, &memo, 0);
	uuidmap_free(&memo);
	return end;
}

/*
 * When t should end, queueing counted: the work ahead of it in the
 * queue and the running runs' rest, shared out over the pool's slots
 * that take tasks now (a fluid pool: what every slot would do if the
 * work split evenly), then its own run.  For a deadline's forecast at
 * submit, so a walk of the queue up to t once.  Not counted: nodes that
 * will come or go (batch windows, switch-offs).
 */
int64_t
node_task_forecast(const struct node *n, const struct task *t, int64_t now)
{
	struct task	**run, *q;
	size_t		  i, nrun;
	int64_t		  work = 0, slots = 0, start, end, e;

	if ((end = node_task_end_estimate(n, t, now)) < 0)
		return -1;
	if (t->state != TASK_READY)
		return end;		/* its inputs first: at the earliest */
	for (i = 0; i < readyq_len(&n->ready) &&
	    (q = readyq_at(&n->ready, i)) != t; i++)
		work += placement_rank_ms(n, q->exec);
	if ((run = runwatch_running(n, &nrun)) != NULL) {
		for (i = 0; i < nrun; i++)
			if ((e = node_task_end_estimate(n, run[i], now)) > now)
				work += e - now;
		free(run);
	}
	if (run_volunteering(n))
		slots += n->cfg.slots;
	for (i = 0; i < peertab_count(n); i++) {
		const struct peer *p = peertab_at(n, (int)i);
		if (p != NULL && p->alive && peerrun_takes_tasks(p))
			slots += p->slots > 0 ? p->slots : 1;
	}
	if (slots == 0)
		return -1;	/* no node takes tasks now */
	start = now + work / slots;
	if (t->begin_ms > start)
		start = t->begin_ms;
	return start + (end - now);
}
