/*
 * rules.c -- total orders shared by every node (see rules.h).  Each is a
 * strict "a beats b": never true both ways, so two nodes comparing the
 * same pair always agree.
 */
#include <string.h>

#include "rules.h"
#include "task.h"

int
rules_candidacy_beats(const struct candidacy *a, const struct candidacy *b)
{
	if (a->reputation != b->reputation)
		return a->reputation > b->reputation;
	if (a->map_size != b->map_size)
		return a->map_size > b->map_size;
	if (a->timestamp != b->timestamp)
		return a->timestamp < b->timestamp;
	return strcmp(a->name, b->name) < 0;
}

int
rules_dequeue_beats(int64_t ts_a, const char *a, int64_t ts_b, const char *b)
{
	if (ts_a != ts_b)
		return ts_a < ts_b;
	return strcmp(a, b) < 0;
}

int
rules_run_beats(int64_t start_a, const char *a, int64_t start_b,
    const char *b)
{
	if (start_a != start_b)
		return start_a < start_b;
	return strcmp(a, b) < 0;
}

/* Submitted < Ready < Running; the final states above them all. */
static int
state_rank(enum task_state s)
{
	switch (s) {
	case TASK_SUBMITTED:
		return 0;
	case TASK_READY:
		return 1;
	case TASK_RUNNING:
		return 2;
	default:
		return 3;
	}
}

/*
 * Between two ends: a result (Terminated) over a cancellation or
 * failure, a cancellation (a person's decision) over a failure, between
 * two results the one of the lower node name, then the lower reason,
 * then the higher version.
 */
int
rules_end_beats(const struct task *r, const struct task *t)
{
	int	rt = r->state == TASK_TERMINATED, tt = t->state == TASK_TERMINATED;
	int	c;

	if (rt != tt)
		return rt;
	if ((c = strcmp(r->running_on, t->running_on)) != 0)
		return c < 0;
	if (r->state != t->state)
		return r->state == TASK_CANCELLED;
	if ((c = strcmp(r->reason, t->reason)) != 0)
		return c < 0;
	return r->ver > t->ver;
}

/*
 * A final state is never undone.  A confirmed end beats every other
 * record; an unconfirmed end of a later round beats one of an earlier
 * round; of two unconfirmed ends of one round neither replaces the
 * other -- each node keeps the one it voted for (confirm.c) until one
 * is confirmed or a later round starts.  Two confirmed ends (only after
 * a partition longer than the membership timeout) go by
 * rules_end_beats.  Between records that have not ended: the higher
 * version, then the further state, then the lower node name, then the
 * lower reason: the order is total, so no two different records leave
 * two nodes each keeping its own.  (Before this rule, the node prefers
 * the record whose inputs agree with the upstream results it keeps: see
 * replicate.c.)
 */
int
rules_record_wins(const struct task *r, const struct task *t)
{
	int	rf = task_is_final(r->state), tf = task_is_final(t->state);

	if (rf != tf)
		return rf;
	if (rf) {
		if (r->confirmed != t->confirmed)
			return r->confirmed;
		if (r->confirmed)
			return rules_end_beats(r, t);
		return r->round > t->round;
	}
	if (r->ver != t->ver)
		return r->ver > t->ver;
	if (state_rank(r->state) != state_rank(t->state))
		return state_rank(r->state) > state_rank(t->state);
	if (strcmp(r->running_on, t->running_on) != 0)
		return strcmp(r->running_on, t->running_on) < 0;
	if (r->held != t->held)		/* two owners' asks at once */
		return r->held;
	return strcmp(r->reason, t->reason) < 0;
}

static uint64_t
mix(uint64_t h, const char *s)
{
	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (h ^ 0xff) * 1099511628211ULL;
}

/* An end as a number, equal for equal ends: state, runner, outputs and
 * reason, what a client is told. */
uint64_t
rules_end_value(const struct task *t)
{
	uint64_t	h = 1469598103934665603ULL;
	int		i;

	h = (h ^ (uint64_t)t->state) * 1099511628211ULL;
	h = mix(h, t->running_on);
	for (i = 0; i < t->noutputs; i++)
		h = mix(h, t->outputs[i]);
	return mix(h, t->reason);
}
