/*
 * evqueue.c -- the simulator's event queue (evqueue.h).  Events are
 * taken by time, those of one time by receiver and each receiver's in
 * the order they were posted, so a seed replays the same run.  Each
 * time has a FIFO bucket of its own, found by a hash of the time, and
 * the buckets' times are a min-heap.  A broadcast in a 1000-node pool
 * posts 999 events at a few times (latency plus 0..jitter ms): posting
 * and taking each is O(1), where a heap of a million events missed the
 * cache at every level.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evqueue.h"
#include "simnet.h"

static size_t
hash_at(int64_t at, size_t cap)
{
	return (size_t)(((uint64_t)at * 0x9E3779B97F4A7C15ULL) >> 32) &
	    (cap - 1);
}

/* The bucket of time at, or (size_t)-1. */
static size_t
lookup(const struct evqueue *q, int64_t at)
{
	size_t	i;

	if (q->cap == 0)
		return (size_t)-1;
	for (i = hash_at(at, q->cap); q->used[i]; i = (i + 1) & (q->cap - 1))
		if (q->keys[i] == at)
			return q->vals[i];
	return (size_t)-1;
}

static void
insert(struct evqueue *q, int64_t at, size_t b)
{
	size_t	i;

	for (i = hash_at(at, q->cap); q->used[i]; i = (i + 1) & (q->cap - 1))
		;
	q->used[i] = 1;
	q->keys[i] = at;
	q->vals[i] = b;
}

static void
grow(struct evqueue *q)
{
	struct evqueue	old = *q;
	size_t		i;

	q->cap = old.cap == 0 ? 256 : old.cap * 2;
	q->keys = sim_calloc(q->cap, sizeof *q->keys);
	q->vals = sim_calloc(q->cap, sizeof *q->vals);
	q->used = sim_calloc(q->cap, 1);
	for (i = 0; i < old.cap; i++)
		if (old.used[i])
			insert(q, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
	free(old.used);
}

/* Linear probing's deletion: shift the rest of the run back. */
static void
erase(struct evqueue *q, int64_t at)
{
	size_t	i = hash_at(at, q->cap), j, home;

	while (q->keys[i] != at)
		i = (i + 1) & (q->cap - 1);
	q->used[i] = 0;
	for (j = (i + 1) & (q->cap - 1); q->used[j];
	    j = (j + 1) & (q->cap - 1)) {
		home = hash_at(q->keys[j], q->cap);
		/* Moves back unless its home lies in (i, j]. */
		if ((i < j) ? (home <= i || home > j) : (home <= i && home > j)) {
			q->used[i] = 1;
			q->keys[i] = q->keys[j];
			q->vals[i] = q->vals[j];
			q->used[j] = 0;
			i = j;
		}
	}
}

static int64_t
at_of(const struct evqueue *q, size_t h)
{
	return q->pool[q->heap[h]].at;
}

static void
sift_up(struct evqueue *q, size_t i)
{
	size_t	b = q->heap[i];

	for (; i > 0 && q->pool[b].at < at_of(q, (i - 1) / 2); i = (i - 1) / 2)
		q->heap[i] = q->heap[(i - 1) / 2];
	q->heap[i] = b;
}

static void
sift_down(struct evqueue *q, size_t i)
{
	size_t	b = q->heap[i], c;

	while ((c = 2 * i + 1) < q->nheap) {
		if (c + 1 < q->nheap && at_of(q, c + 1) < at_of(q, c))
			c++;
		if (q->pool[b].at <= at_of(q, c))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	q->heap[i] = b;
}

/* A new bucket for time at: a spare one, or a new one. */
static size_t
open_bucket(struct evqueue *q, int64_t at)
{
	size_t	b;

	if (q->nspare > 0)
		b = q->spare[--q->nspare];
	else {
		b = q->npool++;
		q->pool = sim_realloc(q->pool, q->npool * sizeof *q->pool);
		q->spare = sim_realloc(q->spare, q->npool * sizeof *q->spare);
		q->heap = sim_realloc(q->heap, q->npool * sizeof *q->heap);
		memset(&q->pool[b], 0, sizeof q->pool[b]);
	}
	q->pool[b].at = at;
	q->pool[b].head = q->pool[b].n = 0;
	if ((q->nheap + 1) * 2 > q->cap)
		grow(q);
	insert(q, at, b);
	q->heap[q->nheap++] = b;
	sift_up(q, q->nheap - 1);
	return b;
}

void
evq_push(struct evqueue *q, const struct sim_ev *e)
{
	size_t			 b = lookup(q, e->at);
	struct evq_bucket	*k;

	if (b == (size_t)-1)
		b = open_bucket(q, e->at);
	k = &q->pool[b];
	if (k->n == k->cap) {
		k->cap = k->cap == 0 ? 16 : k->cap * 2;
		k->v = sim_realloc(k->v, k->cap * sizeof *k->v);
	}
	k->v[k->n++] = *e;
	q->n++;
}

/*
 * A time's events grouped by receiver, each receiver's in the order
 * posted (a stable counting sort).  What reaches a node within one
 * millisecond is handled in one go, as a node drains its socket: the
 * same order for each node, and its state stays in the cache between
 * them (a broadcast met a thousand cold nodes in a row).
 */
static void
by_receiver(struct evq_bucket *k)
{
	static size_t		*start;
	static size_t		 nstart;
	static struct sim_ev	*sorted;
	static size_t		 nsorted;
	size_t			 i, nodes = 0;

	for (i = 0; i < k->n; i++)
		if ((size_t)k->v[i].to >= nodes)
			nodes = (size_t)k->v[i].to + 1;
	if (nodes + 1 > nstart) {
		start = sim_realloc(start, (nodes + 1) * sizeof *start);
		nstart = nodes + 1;
	}
	if (k->n > nsorted) {
		sorted = sim_realloc(sorted, k->n * sizeof *sorted);
		nsorted = k->n;
	}
	memset(start, 0, (nodes + 1) * sizeof *start);
	for (i = 0; i < k->n; i++)
		start[k->v[i].to + 1]++;
	for (i = 1; i <= nodes; i++)
		start[i] += start[i - 1];
	for (i = 0; i < k->n; i++)
		sorted[start[k->v[i].to]++] = k->v[i];
	memcpy(k->v, sorted, k->n * sizeof *sorted);
}

struct sim_ev
evq_pop(struct evqueue *q)
{
	size_t			 b = q->heap[0];
	struct evq_bucket	*k = &q->pool[b];
	struct sim_ev		 e;

	if (k->head == 0 && k->n > 1)	/* the time begins */
		by_receiver(k);
	e = k->v[k->head++];

	q->n--;
	if (k->head == k->n) {
		/* Its time is over: the bucket waits for another. */
		erase(q, k->at);
		q->heap[0] = q->heap[--q->nheap];
		if (q->nheap > 0)
			sift_down(q, 0);
		q->spare[q->nspare++] = b;
	}
	return e;
}

int64_t
evq_next_at(const struct evqueue *q)
{
	return q->nheap > 0 ? at_of(q, 0) : INT64_MAX;
}

void
evq_free(struct evqueue *q)
{
	size_t	i;

	for (i = 0; i < q->npool; i++)
		free(q->pool[i].v);
	free(q->pool);
	free(q->spare);
	free(q->heap);
	free(q->keys);
	free(q->vals);
	free(q->used);
	memset(q, 0, sizeof *q);
}
