/*
 * fairshare.c -- users who used less of the pool lately first
 * (fairshare.h).  Recomputed from the map when it changed, before the
 * queue is read: a walk of the map and a sort of the queue (an index by
 * user would spare both; the pools it serves are an office's).
 */
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "fairshare.h"

struct usage {
	const char	*user;
	double		 used;	/* core-ms, halved per half-life before last */
};

/* The usage entry of user in v (n used, at most max), added if new. */
static struct usage *
entry(struct usage *v, size_t *n, size_t max, const char *user)
{
	size_t	i;

	for (i = 0; i < *n; i++)
		if (strcmp(v[i].user, user) == 0)
			return &v[i];
	if (*n == max)
		return NULL;
	v[*n].user = user;
	v[*n].used = 0;
	return &v[(*n)++];
}

/* 2^-x for x >= 0 half-lives: halved per whole one, and linearly in
 * between (the core links no libm; a ranking needs no more). */
static double
halved(double x)
{
	int	k = (int)x;

	if (x >= 63)
		return 0;
	return (1 - (x - k) / 2) / (double)(UINT64_C(1) << k);
}

/* Did t's last run end, measurably, for a known user? */
static int
counts(const struct task *t)
{
	return t->user[0] != '\0' && task_is_final(t->state) &&
	    t->start_ms >= 0 && t->end_ms >= t->start_ms;
}

void
fairshare_refresh(struct node *n)
{
	struct fairshare	*f = &n->fairshare;
	struct usage		*v;
	const struct task	*t;
	struct task		*q;
	size_t			 it = 0, nu = 0, max, k;
	int64_t			 last = INT64_MIN;
	double			 half = (double)n->cfg.fairshare_halflife_ms;
	struct usage		*u;

	if (n->ready.order != ORDER_FAIRSHARE || (f->valid &&
	    f->gen == n->map.gen && f->pushes == n->ready.pushes))
		return;
	f->valid = 1;
	f->gen = n->map.gen;
	f->pushes = n->ready.pushes;
	while ((t = node_next_task(n, &it)) != NULL)
		if (counts(t) && t->end_ms > last)
			last = t->end_ms;
	max = readyq_len(&n->ready) + n->map.n + 1;
	if ((v = calloc(max, sizeof *v)) == NULL)
		return;
	for (it = 0; (t = node_next_task(n, &it)) != NULL;)
		if (counts(t) && (u = entry(v, &nu, max, t->user)) != NULL)
			u->used += (double)(t->end_ms - t->start_ms) *
			    task_cores(t) * (half > 0 ? halved((double)(last -
			    t->end_ms) / half) : 1);
	for (k = 0; k < readyq_len(&n->ready); k++) {
		q = readyq_at(&n->ready, k);
		q->fair_key = (u = entry(v, &nu, max, q->user)) != NULL ?
		    u->used : 0;
	}
	free(v);
	readyq_resort(&n->ready);
}
