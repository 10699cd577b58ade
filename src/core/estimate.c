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
 *
 * The forecast counts the queue: the ready tasks played on the pool's
 * slots in the queue's order.  At submit for one task (a deadline's);
 * for views, once for all of them, kept (estimate.h).
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

/*
 * A submitter's estimate, in what runs take here: scaled by what the
 * runs of its program's tasks took against theirs (people round up, and
 * an estimate may be for another machine), as given until one ran.
 */
int64_t
estimate_task_ms(const struct node *n, const struct task *t, int speed)
{
	const int64_t	most = TASK_EST_MAX * SPEED_UNIT / SPEED_MIN;
	double		e;

	if (t->est_ms <= 0 || speed <= 0)
		return placement_estimate(n, t->exec, speed);
	e = (double)t->est_ms * placement_est_scale(n, t->exec) * SPEED_UNIT /
	    speed;
	return e < 1 ? 1 : e > (double)most ? most : (int64_t)e;
}

int64_t
estimate_task_rank_ms(const struct node *n, const struct task *t)
{
	return t->est_ms > 0 ? t->est_ms : placement_rank_ms(n, t->exec);
}

int64_t
node_task_run_estimate(const struct node *n, const struct task *t)
{
	return estimate_task_ms(n, t, speed_of_runner(n, t));
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

/* A slot of the pool: when it comes free, and when its node stops
 * taking tasks (INT64_MAX: not known to). */
struct slot {
	int64_t	free, until;
};

/* A min-heap of the slots by when they come free. */
static void
sift_down(struct slot *h, size_t n, size_t i)
{
	for (;;) {
		size_t		l = 2 * i + 1, m = i;
		struct slot	x;
		if (l < n && h[l].free < h[m].free)
			m = l;
		if (l + 1 < n && h[l + 1].free < h[m].free)
			m = l + 1;
		if (m == i)
			return;
		x = h[i], h[i] = h[m], h[m] = x;
		i = m;
	}
}

/* The slots of one node into h (at most max); how many. */
static size_t
node_slots(const struct node *n, const struct peer *p, int nslots,
    int64_t now, struct slot *h, size_t max)
{
	int64_t	from, until;
	size_t	i;

	if (!avail_slots_when(n, p, now, &from, &until))
		return 0;
	for (i = 0; i < (size_t)(nslots > 0 ? nslots : 1) && i < max; i++) {
		h[i].free = from;
		h[i].until = until;
	}
	return i;
}

/*
 * The pool's slots that take tasks now or will in a batch window: ours
 * and the live peers'; NULL if none (or no memory).  Those that take
 * tasks now come first, for the runs they hold.
 */
static struct slot *
pool_slots(const struct node *n, int64_t now, size_t *count)
{
	struct slot	*h, x;
	size_t		 i, j, k = 0, max = (size_t)n->cfg.slots;

	for (i = 0; i < peertab_count(n); i++) {
		const struct peer *p = peertab_at(n, (int)i);
		if (p != NULL)
			max += p->slots > 0 ? (size_t)p->slots : 1;
	}
	if ((h = calloc(max, sizeof *h)) == NULL)
		return NULL;
	k = node_slots(n, NULL, n->cfg.slots, now, h, max);
	for (i = 0; i < peertab_count(n); i++) {
		const struct peer *p = peertab_at(n, (int)i);
		if (p != NULL)
			k += node_slots(n, p, p->slots, now, h + k, max - k);
	}
	for (i = 0, j = 0; i < k; i++)
		if (h[i].free == now)
			x = h[i], h[i] = h[j], h[j++] = x;
	*count = k;
	if (k == 0)
		free(h);
	return k > 0 ? h : NULL;
}

/* A run of run ms on the first slot free that stays long enough: its
 * start, or -1 if none does; the slot is held hold ms from then.  A
 * slot whose node stops taking tasks before the run would end is left
 * (a run there would be vacated). */
static int64_t
place(struct slot *h, size_t *n, int64_t run, int64_t hold)
{
	int64_t	start;

	while (*n > 0) {
		if (h[0].until == INT64_MAX || h[0].free <= h[0].until - run) {
			start = h[0].free;
			h[0].free += hold;
			sift_down(h, *n, 0);
			return start;
		}
		h[0] = h[--*n];
		sift_down(h, *n, 0);
	}
	return -1;
}

/* The pool's slots as a heap by when they come free: a slot that takes
 * tasks now comes free when its run should end (or now).  NULL if no
 * node takes tasks, now or later. */
static struct slot *
slots_now(const struct node *n, int64_t now, size_t *count)
{
	struct task	**run;
	struct slot	 *h;
	size_t		  i, k, nrun;
	int64_t		  e;

	if ((h = pool_slots(n, now, count)) == NULL)
		return NULL;
	if ((run = runwatch_running(n, &nrun)) != NULL) {
		for (i = 0, k = 0; i < nrun && k < *count &&
		    h[k].free == now; i++)
			if ((e = node_task_end_estimate(n, run[i], now)) > now)
				h[k++].free = e;
		free(run);
	}
	for (i = *count / 2 + 1; i-- > 0;)
		sift_down(h, *count, i);
	return h;
}

/*
 * When t should end, queueing counted: each slot that takes tasks now
 * comes free when its run should end (or now), one whose batch window
 * opens later when it opens; each task ahead of t in the queue takes
 * the first slot free that stays long enough for its learned run time,
 * and t the next, then its own run: the pool's greedy order, played
 * ahead.  For a deadline's forecast at submit, so a walk of the queue up
 * to t once.  Not counted: screensaver spells to come or end, switch-
 * offs, work that arrives later with less slack.
 */
int64_t
node_task_forecast(const struct node *n, const struct task *t, int64_t now)
{
	struct task	*q;
	struct slot	*h;
	size_t		 i, slots;
	int64_t		 start, end, rank;

	if ((end = node_task_end_estimate(n, t, now)) < 0)
		return -1;
	if (t->state != TASK_READY)
		return end;		/* its inputs first: at the earliest */
	if ((h = slots_now(n, now, &slots)) == NULL)
		return -1;	/* no node takes tasks, now or later */
	/* t itself, or where it would go (--deadline-strict asks first).
	 * A task ahead no slot stays long enough for waits past them. */
	for (i = 0; i < readyq_len(&n->ready) &&
	    readyq_cmp(&n->ready, (q = readyq_at(&n->ready, i)), t) < 0;
	    i++) {
		rank = estimate_task_rank_ms(n, q);
		(void)place(h, &slots, rank, rank);
	}
	start = place(h, &slots, end - now, end - now);
	free(h);
	if (start < 0)
		return -1;
	if (t->begin_ms > start)
		start = t->begin_ms;
	return start + (end - now);
}

/*
 * The board: each ready task's end as node_task_forecast says it at
 * its place in the queue (the tasks ahead hold their slots for their
 * rank's run time, as there), -1 where no slot stays long enough.
 */
static void
play_all(struct node *n, int64_t now)
{
	struct estimate	*e = &n->estimate;
	struct task	*q;
	struct slot	*h;
	size_t		 i, slots;
	int64_t		 run, start, rank;

	uuidmap_free(&e->ends);
	memset(&e->ends, 0, sizeof e->ends);
	e->digest = node_digest(n);
	e->at = now;
	e->played = 1;
	if ((h = slots_now(n, now, &slots)) == NULL)
		slots = 0;
	for (i = 0; i < readyq_len(&n->ready); i++) {
		q = readyq_at(&n->ready, i);
		run = node_task_run_estimate(n, q);
		rank = estimate_task_rank_ms(n, q);
		start = place(h, &slots, run >= 0 ? run : rank, rank);
		if (start >= 0 && q->begin_ms > start)
			start = q->begin_ms;
		(void)uuidmap_put(&e->ends, q->uuid, start >= 0 && run >= 0 ?
		    start + run : -1);	/* no memory: the chain's bound */
	}
	free(h);
}

int64_t
node_task_eta(struct node *n, const struct task *t, int64_t now)
{
	struct estimate	*e = &n->estimate;
	int64_t		 spacing;

	if (task_is_final(t->state))
		return t->end_ms;
	spacing = (int64_t)readyq_len(&n->ready) / ESTIMATE_TASKS_PER_MS;
	if (spacing > ESTIMATE_KEEP_MS)
		spacing = ESTIMATE_KEEP_MS;
	if (!e->played || now < e->at || (now - e->at >= spacing &&
	    (e->digest != node_digest(n) || now - e->at >= ESTIMATE_KEEP_MS)))
		play_all(n, now);
	/* A waiting task after its inputs' played ends; one the board
	 * has not seen (newer than it) by the chain's bound. */
	return end_of(n, t, now, &e->ends, 0);
}

void
estimate_free(struct node *n)
{
	uuidmap_free(&n->estimate.ends);
}
