/*
 * readyq.c -- the ready queue as a sorted array.  Queues hold at most a
 * few thousand tasks, so binary search plus memmove beats a heap here,
 * and position k (the dequeue rank) is a plain index.
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

/* Room for every queued task in the heap: pushes then never fail. */
static int
age_room(struct readyq *q, size_t n)
{
	struct task	**v;
	size_t		  cap;

	if (n <= q->age_cap)
		return 0;
	cap = q->age_cap == 0 ? 32 : q->age_cap;
	while (cap < n)
		cap *= 2;
	if ((v = realloc(q->age, cap * sizeof *v)) == NULL)
		return -1;
	q->age = v;
	q->age_cap = cap;
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

/* First index whose task does not go before t. */
static size_t
lower_bound(const struct readyq *q, const struct task *t)
{
	size_t	lo = 0, hi = q->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (readyq_cmp(q, q->v[mid], t) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int
readyq_push(struct readyq *q, struct task *t)
{
	size_t	i;

	if (q->n == q->cap) {
		size_t cap = q->cap == 0 ? 32 : q->cap * 2;
		struct task **v = realloc(q->v, cap * sizeof *v);
		if (v == NULL)
			return -1;
		q->v = v;
		q->cap = cap;
	}
	if (age_room(q, q->n + 1) == -1)
		return -1;
	i = lower_bound(q, t);
	memmove(&q->v[i + 1], &q->v[i], (q->n - i) * sizeof *q->v);
	q->v[i] = t;
	q->n++;
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

/* Rare (a promotion, a workflow's key, the order): an insertion sort
 * in place rather than a shuffle per task. */
void
readyq_resort(struct readyq *q)
{
	struct task	**v = q->v;
	size_t		  n = q->n, i;

	q->n = 0;
	for (i = 0; i < n; i++) {
		struct task *t = v[i];
		size_t j = lower_bound(q, t);
		memmove(&v[j + 1], &v[j], (q->n - j) * sizeof *v);
		v[j] = t;
		q->n++;
	}
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
