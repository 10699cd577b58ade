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

/* A min-heap of the times the pool's slots come free. */
static void
sift_down(int64_t *h, size_t n, size_t i)
{
	for (;;) {
		size_t	l = 2 * i + 1, m = i;
		int64_t	x;
		if (l < n && h[l] < h[m])
			m = l;
		if (l + 1 < n && h[l + 1] < h[m])
			m = l + 1;
		if (m == i)
			return;
		x = h[i], h[i] = h[m], h[m] = x;
		i = m;
	}
}

/* The pool's slots that take tasks now: ours and the live peers'. */
static size_t
pool_slots(const struct node *n)
{
	size_t	i, slots = 0;

	if (run_volunteering(n))
		slots += (size_t)n->cfg.slots;
	for (i = 0; i < peertab_count(n); i++) {
		const struct peer *p = peertab_at(n, (int)i);
		if (p != NULL && p->alive && peerrun_takes_tasks(p))
			slots += p->slots > 0 ? (size_t)p->slots : 1;
	}
	return slots;
}

/*
 * When t should end, queueing counted: each slot that takes tasks now
 * comes free when its run should end (or now), each task ahead of t in
 * the queue takes the first slot free for its learned run time, and t
 * the next, then its own run: the pool's greedy order, played ahead.
 * For a deadline's forecast at submit, so a walk of the queue up to t
 * once.  Not counted: nodes that will come or go (batch windows,
 * switch-offs), work that arrives later with less slack.
 */
int64_t
node_task_forecast(const struct node *n, const struct task *t, int64_t now)
{
	struct task	**run, *q;
	size_t		  i, k, nrun, slots;
	int64_t		 *free_at, start, end, e;

	if ((end = node_task_end_estimate(n, t, now)) < 0)
		return -1;
	if (t->state != TASK_READY)
		return end;		/* its inputs first: at the earliest */
	if ((slots = pool_slots(n)) == 0 ||
	    (free_at = calloc(slots, sizeof *free_at)) == NULL)
		return -1;	/* no node takes tasks now */
	for (i = 0; i < slots; i++)
		free_at[i] = now;
	if ((run = runwatch_running(n, &nrun)) != NULL) {
		for (i = 0, k = 0; i < nrun && k < slots; i++)
			if ((e = node_task_end_estimate(n, run[i], now)) > now)
				free_at[k++] = e;
		free(run);
	}
	for (i = slots / 2 + 1; i-- > 0;)
		sift_down(free_at, slots, i);
	/* t itself, or where it would go (--deadline-strict asks first). */
	for (i = 0; i < readyq_len(&n->ready) &&
	    readyq_cmp(&n->ready, (q = readyq_at(&n->ready, i)), t) < 0;
	    i++) {
		free_at[0] += placement_rank_ms(n, q->exec);
		sift_down(free_at, slots, 0);
	}
	start = free_at[0];
	free(free_at);
	if (t->begin_ms > start)
		start = t->begin_ms;
	return start + (end - now);
}
