/*
 * order.c -- the ready queue's keys.  A workflow is as urgent as its most
 * urgent task: a low task upstream of an interactive one holds it back,
 * and interleaving the workflows' tasks by their own priorities delays
 * every workflow (the thesis grid, 3 nodes x 15 chains: +19.6 % over
 * the best average makespan).  So a task's class is its workflow's, and
 * the workflows go first come, first served.  Urgency and the longest
 * path only grow while a task is known: a record that leaves the map
 * does not reorder the queue.  The path's expected run time (the lret
 * and sret orders' key) is summed from each task's estimate where its
 * submitter gave one, else from what the pool learned of its type; when
 * that moves, every path is summed again (rare: placement_rank_ms).
 */
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"

void
order_free(struct node *n)
{
	free(n->order.v);
	uuidmap_free(&n->order.index);
	memset(&n->order, 0, sizeof n->order);
}

static struct order_wf *
find_wf(struct node *n, const char *uuid)
{
	int64_t	i;

	return uuidmap_get(&n->order.index, uuid, &i) ? &n->order.v[i] : NULL;
}

static struct order_wf *
add_wf(struct node *n, const char *uuid, const struct task *first)
{
	struct order	*o = &n->order;
	struct order_wf	*w;

	if (o->n == o->cap) {
		size_t cap = o->cap == 0 ? 16 : o->cap * 2;
		if ((w = realloc(o->v, cap * sizeof *w)) == NULL)
			return NULL;
		o->v = w;
		o->cap = cap;
	}
	if (uuidmap_put(&o->index, uuid, (int64_t)o->n) == -1)
		return NULL;
	w = &o->v[o->n++];
	memset(w, 0, sizeof *w);
	memcpy(w->uuid, uuid, sizeof w->uuid);
	w->first_submit_ms = first->submit_ms;
	return w;
}

static void
copy_keys(struct task *t, const struct order_wf *w)
{
	t->urgent = w->urgent;
	t->wf_submit_ms = w->first_submit_ms;
}

/* w's keys changed: its queued tasks take them, and the queue is sorted
 * again (once per workflow at most, mostly). */
static void
requeue_wf(struct node *n, const struct order_wf *w)
{
	size_t	k, moved = 0;

	for (k = 0; k < readyq_len(&n->ready); k++) {
		struct task *t = readyq_at(&n->ready, k);
		if (strcmp(task_workflow(t), w->uuid) == 0) {
			copy_keys(t, w);
			moved++;
		}
	}
	if (moved > 0)
		readyq_resort(&n->ready);
}

/* A task's own share of its path's time. */
static int64_t
own_ms(const struct node *n, const struct task *t)
{
	return estimate_task_rank_ms(n, t);
}

/*
 * The longest path from t grew: so may its upstream's, up the DAG (in
 * tasks, and in time).  No path is longer than the map: records that
 * make a cycle (a peer's, crafted) stop there instead of lengthening
 * each other for ever.  requeue: keep the queue sorted as keys change
 * (not when the caller sorts it after).
 */
static void
lengthen_upstream(struct node *n, struct task *t, int requeue)
{
	struct task	**stack = NULL, **bigger;
	size_t		  sn = 0, scap = 0, most = taskmap_count(&n->map);
	int		  i;

	for (;;) {
		for (i = 0; i < t->ninputs; i++) {
			struct task *up = taskmap_find(&n->map,
			    t->inputs[i].from);
			int64_t rest;
			int queued;
			if (up == NULL || (size_t)t->path_left >= most)
				continue;
			rest = own_ms(n, up) + t->rest_ms;
			if (up->path_left > t->path_left &&
			    up->rest_ms >= rest)
				continue;
			queued = requeue && readyq_remove(&n->ready, up) == 0;
			if (up->path_left <= t->path_left)
				up->path_left = t->path_left + 1;
			if (up->rest_ms < rest)
				up->rest_ms = rest;
			if (queued)
				readyq_push(&n->ready, up);
			if (sn == scap) {
				scap = scap == 0 ? 16 : scap * 2;
				if ((bigger = realloc(stack, scap *
				    sizeof *stack)) == NULL)
					goto out;	/* shorter paths */
				stack = bigger;
			}
			stack[sn++] = up;
		}
		if (sn == 0)
			break;
		t = stack[--sn];
	}
out:
	free(stack);
}

int
order_added(struct node *n, struct task *t)
{
	const char	(*down)[UUID_STRLEN + 1];
	struct order_wf	*w;
	int		 count, i, changed = 0;

	t->path_left = 1;
	t->rest_ms = own_ms(n, t);
	down = depindex_get(&n->map.deps, t->uuid, &count);
	for (i = 0; i < count; i++) {
		const struct task *d = taskmap_find(&n->map, down[i]);
		if (d == NULL)
			continue;
		if (d->path_left >= t->path_left)
			t->path_left = d->path_left + 1;
		if (own_ms(n, t) + d->rest_ms > t->rest_ms)
			t->rest_ms = own_ms(n, t) + d->rest_ms;
	}
	lengthen_upstream(n, t, 1);

	if ((w = find_wf(n, task_workflow(t))) == NULL &&
	    (w = add_wf(n, task_workflow(t), t)) == NULL) {
		t->urgent = 0;
		t->wf_submit_ms = t->submit_ms;
		return -1;
	}
	w->ntasks++;
	if (t->prio == PRIO_INTERACTIVE && !w->urgent)
		w->urgent = changed = 1;
	if (t->submit_ms < w->first_submit_ms) {
		w->first_submit_ms = t->submit_ms;
		changed = 1;
	}
	copy_keys(t, w);
	if (changed)
		requeue_wf(n, w);
	return 0;
}

void
order_removed(struct node *n, const struct task *t)
{
	struct order	*o = &n->order;
	struct order_wf	*w = find_wf(n, task_workflow(t));
	size_t		 i;

	if (w == NULL || --w->ntasks > 0)
		return;
	/* Its last task: the entry goes, the last one takes its place. */
	uuidmap_del(&o->index, w->uuid);
	i = (size_t)(w - o->v);
	if (i != --o->n) {
		o->v[i] = o->v[o->n];
		uuidmap_put(&o->index, o->v[i].uuid, (int64_t)i);
	}
}

void
order_replaced(struct node *n, const struct task *old, struct task *r)
{
	/* r first: old may be its workflow's last task here. */
	if (r != NULL)
		order_added(n, r);
	if (old != NULL)
		order_removed(n, old);
}

int
order_queue(struct node *n, struct task *t)
{
	const struct order_wf	*w = find_wf(n, task_workflow(t));

	if (w != NULL)
		copy_keys(t, w);
	return readyq_push(&n->ready, t);
}

void
order_rerank(struct node *n)
{
	struct task	*t;
	size_t		 i = 0;

	while ((t = taskmap_next(&n->map, &i)) != NULL) {
		t->path_left = 1;
		t->rest_ms = own_ms(n, t);
	}
	i = 0;
	while ((t = taskmap_next(&n->map, &i)) != NULL)
		lengthen_upstream(n, t, 0);
	/* Every order keys on it: lret and sret, and deadlines' slack. */
	readyq_resort(&n->ready);
}

void
order_set_window(struct node *n, int window_order)
{
	readyq_set_order(&n->ready, window_order != ORDER_NODE ?
	    (enum queue_order)window_order : n->cfg.order);
}
