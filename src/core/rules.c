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
 * A final state is never undone.  Between two final states a result
 * (Terminated) is kept over a cancellation or failure, a cancellation (a
 * person's decision) over a failure, and between two results the one of
 * the lower node name: only one is ever accepted.  Otherwise the higher
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
		int rt = r->state == TASK_TERMINATED;
		int tt = t->state == TASK_TERMINATED;
		if (rt != tt)
			return rt;
		if (rt && strcmp(r->running_on, t->running_on) != 0)
			return strcmp(r->running_on, t->running_on) < 0;
		if (r->state != t->state)
			return r->state == TASK_CANCELLED;
	}
	if (r->ver != t->ver)
		return r->ver > t->ver;
	if (state_rank(r->state) != state_rank(t->state))
		return state_rank(r->state) > state_rank(t->state);
	if (strcmp(r->running_on, t->running_on) != 0)
		return strcmp(r->running_on, t->running_on) < 0;
	return strcmp(r->reason, t->reason) < 0;
}
