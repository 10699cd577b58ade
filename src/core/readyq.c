/*
 * readyq.c -- the ready queue as a sorted array.  Queues hold at most a
 * few thousand tasks, so binary search plus memmove beats a heap here,
 * and position k (the dequeue rank) is a plain index.  Beside it, in the
 * same order, the tasks this node could ever run (the fit sub-queue):
 * an office's queue for its one GPU desktop costs the other desks no
 * walk when they look for work.
 */
#include <stdlib.h>
#include <string.h>

#include "readyq.h"
#include "task.h"

void
readyq_init(struct readyq *q)
{
	memset(q, 0, sizeof *q);
}

void
readyq_free(struct readyq *q)
{
	free(q->v);
	free(q->age);
	free(q->fit);
	memset(q, 0, sizeof *q);
}

static int
effective_prio(const struct task *t)
{
	return t->prio == PRIO_INTERACTIVE || t->aged || t->urgent;
}

/* The ageing heap (readyq.h): each task knows its place in it. */
static void
age_set(struct readyq *q, size_t i, struct task *t)
{
	q->age[i] = t;
	t->ageq_pos = i + 1;
}

static void
age_up(struct readyq *q, size_t i)
{
	struct task	*t = q->age[i];

	while (i > 0 && q->age[(i - 1) / 2]->ready_ms > t->ready_ms) {
		age_set(q, i, q->age[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	age_set(q, i, t);
}

static void
age_down(struct readyq *q, size_t i)
{
	struct task	*t = q->age[i];
	size_t		 c;

	while ((c = 2 * i + 1) < q->age_n) {
		if (c + 1 < q->age_n &&
		    q->age[c + 1]->ready_ms < q->age[c]->ready_ms)
			c++;
		if (q->age[c]->ready_ms >= t->ready_ms)
			break;
		age_set(q, i, q->age[c]);
		i = c;
	}
	age_set(q, i, t);
}

static void
age_remove(struct readyq *q, struct task *t)
{
	size_t		 i = t->ageq_pos - 1;
	struct task	*last = q->age[--q->age_n];

	t->ageq_pos = 0;
	if (i == q->age_n)
		return;
	q->age[i] = last;	/* the last fills the hole, then moves */
	if (i > 0 && q->age[(i - 1) / 2]->ready_ms > last->ready_ms)
		age_up(q, i);
	else
		age_down(q, i);
}

/* Room for n pointers in *v (the heap too: pushes then never fail). */
static int
room(struct task ***v, size_t *cap, size_t n)
{
	struct task	**nv;
	size_t		  c;

	if (n <= *cap)
		return 0;
	for (c = *cap == 0 ? 32 : *cap; c < n; c *= 2)
		;
	if ((nv = realloc(*v, c * sizeof *nv)) == NULL)
		return -1;
	*v = nv;
	*cap = c;
	return 0;
}

static void
age_push(struct readyq *q, struct task *t)
{
	q->age[q->age_n] = t;
	age_up(q, q->age_n++);
}

/* Keys changed (readyq_resort): the heap holds again exactly the
 * queued tasks ageing may promote. */
static void
age_rebuild(struct readyq *q)
{
	size_t	i;

	for (i = 0; i < q->age_n; i++)
		q->age[i]->ageq_pos = 0;
	q->age_n = 0;
	for (i = 0; i < q->n; i++)
		if (!effective_prio(q->v[i]))
			q->age[q->age_n++] = q->v[i];
	for (i = 0; i < q->age_n; i++)
		q->age[i]->ageq_pos = i + 1;
	for (i = q->age_n / 2; i-- > 0;)
		age_down(q, i);
}

/* When a task with a deadline must start at the latest: the least
 * slack first, an order that holds as time passes. */
static int64_t
latest_start(const struct task *t)
{
	return t->deadline_ms - t->rest_ms;
}

/* It has a deadline it may still meet. */
static int
due(const struct task *t)
{
	return t->deadline_ms > 0 && !t->deadline_late;
}

/* Negative if a goes before b. */
int
readyq_cmp(const struct readyq *q, const struct task *a,
    const struct task *b)
{
	int	pa = effective_prio(a), pb = effective_prio(b);

	if (q->order == ORDER_LRET && a->rest_ms != b->rest_ms)
		return a->rest_ms > b->rest_ms ? -1 : 1;
	if (q->order == ORDER_SRET && a->rest_ms != b->rest_ms)
		return a->rest_ms < b->rest_ms ? -1 : 1;
	if (pa != pb)
		return pb - pa;
	if (q->order == ORDER_FAIRSHARE && a->fair_key != b->fair_key)
		return a->fair_key < b->fair_key ? -1 : 1;
	if (due(a) != due(b))
		return due(a) ? -1 : 1;
	if (due(a) && latest_start(a) != latest_start(b))
		return latest_start(a) < latest_start(b) ? -1 : 1;
	if (a->wf_submit_ms != b->wf_submit_ms)
		return a->wf_submit_ms < b->wf_submit_ms ? -1 : 1;
	if (a->submit_ms != b->submit_ms)
		return a->submit_ms < b->submit_ms ? -1 : 1;
	return strcmp(a->uuid, b->uuid);
}

/* First index of v (n long, in the queue's order) whose task does not
 * go before t. */
static size_t
bound_in(const struct readyq *q, struct task *const *v, size_t n,
    const struct task *t)
{
	size_t	lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (readyq_cmp(q, v[mid], t) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t
lower_bound(const struct readyq *q, const struct task *t)
{
	return bound_in(q, q->v, q->n, t);
}

/* t into the sorted v (n long, room for one more). */
static void
insert_in(const struct readyq *q, struct task **v, size_t *n, struct task *t)
{
	size_t	i = bound_in(q, v, *n, t);

	memmove(&v[i + 1], &v[i], (*n - i) * sizeof *v);
	v[i] = t;
	(*n)++;
}

void
readyq_set_keep(struct readyq *q, int (*keep)(const void *,
    const struct task *), const void *ctx)
{
	q->keep = keep;
	q->keep_ctx = ctx;
}

size_t
readyq_fit_len(const struct readyq *q)
{
	return q->keep != NULL ? q->nfit : q->n;
}

struct task *
readyq_fit_at(const struct readyq *q, size_t i)
{
	if (q->keep == NULL)
		return readyq_at(q, i);
	return i < q->nfit ? q->fit[i] : NULL;
}

size_t
readyq_fit_from(const struct readyq *q, size_t k)
{
	if (q->keep == NULL || k == 0)
		return k;
	return k >= q->n ? q->nfit : bound_in(q, q->fit, q->nfit, q->v[k]);
}

size_t
readyq_pos(const struct readyq *q, const struct task *t)
{
	return lower_bound(q, t);
}

int
readyq_push(struct readyq *q, struct task *t)
{
	int	fit = q->keep != NULL && q->keep(q->keep_ctx, t);

	if (room(&q->v, &q->cap, q->n + 1) == -1 ||
	    (fit && room(&q->fit, &q->capfit, q->nfit + 1) == -1) ||
	    room(&q->age, &q->age_cap, q->n + 1) == -1)
		return -1;
	insert_in(q, q->v, &q->n, t);
	if (fit)
		insert_in(q, q->fit, &q->nfit, t);
	q->pushes++;
	t->ageq_pos = 0;
	if (!effective_prio(t))
		age_push(q, t);
	return 0;
}

int
readyq_remove(struct readyq *q, const struct task *t)
{
	size_t	i = lower_bound(q, t);

	if (i >= q->n || q->v[i] != t)
		return -1;
	memmove(&q->v[i], &q->v[i + 1], (q->n - i - 1) * sizeof *q->v);
	q->n--;
	if (q->keep != NULL && (i = bound_in(q, q->fit, q->nfit, t)) <
	    q->nfit && q->fit[i] == t) {
		memmove(&q->fit[i], &q->fit[i + 1], (q->nfit - i - 1) *
		    sizeof *q->fit);
		q->nfit--;
	}
	if (t->ageq_pos > 0)
		age_remove(q, q->age[t->ageq_pos - 1]);
	return 0;
}

struct task *
readyq_at(const struct readyq *q, size_t k)
{
	return k < q->n ? q->v[k] : NULL;
}

size_t
readyq_len(const struct readyq *q)
{
	return q->n;
}

/* v (n long) in the queue's order again, by insertion in place. */
static void
sort_in_place(const struct readyq *q, struct task **v, size_t *n)
{
	size_t	len = *n, i;

	*n = 0;
	for (i = 0; i < len; i++)
		insert_in(q, v, n, v[i]);
}

/* Rare (a promotion, a workflow's key, the order): an insertion sort
 * in place rather than a shuffle per task. */
void
readyq_resort(struct readyq *q)
{
	sort_in_place(q, q->v, &q->n);
	sort_in_place(q, q->fit, &q->nfit);
	age_rebuild(q);
}

void
readyq_set_order(struct readyq *q, enum queue_order order)
{
	if (q->order == order)
		return;
	q->order = order;
	readyq_resort(q);
}

int
readyq_order_parse(const char *s, enum queue_order *order)
{
	if (strcmp(s, "fcfs") == 0)
		*order = ORDER_FCFS;
	else if (strcmp(s, "lret") == 0)
		*order = ORDER_LRET;
	else if (strcmp(s, "sret") == 0)
		*order = ORDER_SRET;
	else if (strcmp(s, "fairshare") == 0)
		*order = ORDER_FAIRSHARE;
	else
		return -1;
	return 0;
}

int64_t
readyq_age(struct readyq *q, int64_t now, int64_t ageing_ms)
{
	struct task	*t;
	int		 changed = 0;

	if (ageing_ms <= 0)
		return -1;
	while (q->age_n > 0 && (t = q->age[0])->ready_ms + ageing_ms <= now) {
		age_remove(q, t);
		t->aged = 1;
		changed = 1;
	}
	if (changed)
		readyq_resort(q);
	return q->age_n > 0 ? q->age[0]->ready_ms + ageing_ms : -1;
}
