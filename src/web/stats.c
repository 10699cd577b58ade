/*
 * stats.c -- the charts' numbers (stats.h).  Medians, not means: one
 * task stuck behind a broken input should not hide how the rest fared.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "history.h"
#include "node.h"
#include "pooltime.h"
#include "stats.h"
#include "task.h"

#define BUCKETS		96

struct sample {
	int	 bucket;
	int64_t	 v;
};

static int
by_bucket_then_value(const void *a, const void *b)
{
	const struct sample	*x = a, *y = b;

	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

/* Per bucket, the median of the samples in it, into out[]. */
static void
medians(struct sample *s, size_t n, int64_t *out, int nb)
{
	size_t	i = 0, j;
	int	b;

	for (b = 0; b < nb; b++)
		out[b] = -1;
	qsort(s, n, sizeof *s, by_bucket_then_value);
	while (i < n) {
		for (j = i; j < n && s[j].bucket == s[i].bucket; j++)
			;
		out[s[i].bucket] = s[i + (j - i) / 2].v;
		i = j;
	}
}

struct acc {
	int64_t		 from, bucket_ms;
	int		 finished[BUCKETS + 1], failed[BUCKETS + 1];
	struct sample	*wait, *span;
	size_t		 nwait, nspan;
	json_t		*days;		/* pooltime_json's, "running" added */
};

/* Its run's time, for the workstation that ran it, on the day it ended. */
static void
add_running(struct acc *a, const struct task *t)
{
	time_t		 end = (time_t)(t->end_ms / 1000);
	struct tm	 tm;
	char		 date[32];
	json_t		*day, *nodes, *o;
	size_t		 i;

	localtime_r(&end, &tm);
	snprintf(date, sizeof date, "%04d-%02d-%02d", tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday);
	json_array_foreach(a->days, i, day) {
		if (strcmp(json_string_value(json_object_get(day, "day")),
		    date) != 0)
			continue;
		nodes = json_object_get(day, "nodes");
		if ((o = json_object_get(nodes, t->running_on)) == NULL) {
			o = json_object();
			json_object_set_new(nodes, t->running_on, o);
		}
		json_object_set_new(o, "running", json_integer(
		    json_integer_value(json_object_get(o, "running")) +
		    t->end_ms - t->start_ms));
	}
}

static void
count(struct acc *a, const struct task *t, int64_t now)
{
	int	b;

	if ((t->state != TASK_TERMINATED && t->state != TASK_FAILED) ||
	    t->end_ms <= 0)
		return;
	if (t->running_on[0] != '\0' && t->start_ms > 0 &&
	    t->end_ms >= t->start_ms)
		add_running(a, t);
	if (t->end_ms < a->from || t->end_ms > now)
		return;
	b = (int)((t->end_ms - a->from) / a->bucket_ms);
	if (t->state == TASK_FAILED) {
		a->failed[b]++;
		return;
	}
	a->finished[b]++;
	if (t->ready_ms > 0 && t->start_ms >= t->ready_ms)
		a->wait[a->nwait++] = (struct sample){ b, t->start_ms -
		    t->ready_ms };
	if (t->submit_ms > 0 && t->end_ms >= t->submit_ms)
		a->span[a->nspan++] = (struct sample){ b, t->end_ms -
		    t->submit_ms };
}

json_t *
stats_json(const struct node *core, int hours, int64_t now)
{
	struct acc	  a;
	struct task	**live, **hist;
	size_t		  nlive = 0, nhist = 0, i;
	int64_t		  wait[BUCKETS + 1], span[BUCKETS + 1];
	int		  b, nb;
	json_t		 *buckets, *out = NULL;

	memset(&a, 0, sizeof a);
	/* Whole minutes, at most BUCKETS of them. */
	a.bucket_ms = ((int64_t)hours * 3600000 / BUCKETS + 59999) / 60000 *
	    60000;
	nb = (int)(((int64_t)hours * 3600000 + a.bucket_ms - 1) / a.bucket_ms);
	/* Buckets end at the minute now is in. */
	a.from = (now / 60000 + 1) * 60000 - (int64_t)nb * a.bucket_ms;
	live = node_tasks_sorted(core, &nlive);
	if ((hist = history_read(&nhist)) == NULL)
		nhist = 0;
	a.wait = calloc(nlive + nhist + 1, sizeof *a.wait);
	a.span = calloc(nlive + nhist + 1, sizeof *a.span);
	a.days = pooltime_json(now);
	if (a.wait == NULL || a.span == NULL || a.days == NULL ||
	    (live == NULL && nlive > 0))
		goto done;
	for (i = 0; i < nlive; i++)
		count(&a, live[i], now);
	for (i = 0; i < nhist; i++)
		if (node_find(core, hist[i]->uuid) == NULL)
			count(&a, hist[i], now);
	medians(a.wait, a.nwait, wait, nb);
	medians(a.span, a.nspan, span, nb);
	buckets = json_array();
	for (b = 0; b < nb; b++)
		json_array_append_new(buckets, json_pack("{s:I,s:i,s:i,s:o,s:o}",
		    "start_ms", (json_int_t)(a.from + b * a.bucket_ms),
		    "finished", a.finished[b], "failed", a.failed[b],
		    "wait_ms", wait[b] >= 0 ? json_integer(wait[b]) :
		    json_null(), "makespan_ms", span[b] >= 0 ?
		    json_integer(span[b]) : json_null()));
	out = json_pack("{s:i,s:I,s:I,s:I,s:o,s:O}", "hours", hours,
	    "bucket_ms", (json_int_t)a.bucket_ms, "from_ms",
	    (json_int_t)a.from, "now_ms", (json_int_t)now, "buckets", buckets,
	    "days", a.days);
done:
	json_decref(a.days);
	for (i = 0; i < nhist; i++)
		task_free(hist[i]);
	free(hist);
	free(live);
	free(a.wait);
	free(a.span);
	return out;
}
