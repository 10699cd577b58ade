/*
 * claims.c -- the others' TRY_DEQUEUE proposals (claims.h): a ring of
 * the recent ones for the race, a direct-mapped hint per task for
 * dispatch, and when a claimant's claims stop counting.
 */
#include <stdio.h>
#include <string.h>

#include "claims.h"
#include "node.h"
#include "rules.h"
#include "task.h"

static size_t
hint_slot(const char *uuid)
{
	return task_hash(uuid) & (DEQUEUE_HINTS - 1);
}

static struct claim_streak *
streak_of(const struct claims *cl, const char *uuid, const char *node)
{
	return (struct claim_streak *)&cl->streaks[(task_hash(uuid) ^
	    task_hash(node) * 0x9e3779b97f4a7c15ULL) & (DEQUEUE_STREAKS - 1)];
}

/*
 * node has kept claiming uuid for cl->expire_ms without starting it (it
 * would have: the task would not be Ready): a node that lost its STATE,
 * or one that only blocks the task.  Its claims no longer keep us from
 * it.
 */
static int
expired(const struct claims *cl, const char *uuid, const char *node,
    int64_t now)
{
	const struct claim_streak *s = streak_of(cl, uuid, node);

	return strcmp(s->uuid, uuid) == 0 && strcmp(s->node, node) == 0 &&
	    now - s->first >= cl->expire_ms;
}

void
claims_init(struct claims *cl, const struct node_config *c)
{
	int64_t	windows = CLAIM_EXPIRES * c->dequeue_window_ms;

	cl->expire_ms = windows > c->failure_timeout_ms ? windows :
	    c->failure_timeout_ms;
}

void
claims_forget(struct claims *cl, const char *uuid)
{
	struct claim_hint	*h = &cl->hints[hint_slot(uuid)];
	int			 i;

	/* No claim on it lately, as far as the hint tells: nothing to
	 * walk the ring for (a task new to the queue). */
	if (strcmp(h->uuid, uuid) != 0)
		return;
	h->uuid[0] = '\0';
	for (i = 0; i < DEQUEUE_CLAIMS; i++)
		if (strcmp(cl->ring[i].uuid, uuid) == 0)
			cl->ring[i].uuid[0] = '\0';
}

int
claims_taken(const struct claims *cl, const char *uuid, int64_t now,
    int64_t window_ms)
{
	const struct claim_hint *h = &cl->hints[hint_slot(uuid)];

	return h->seen >= now - claims_memory_ms(window_ms) &&
	    strcmp(h->uuid, uuid) == 0 &&
	    !expired(cl, uuid, h->node, now);
}

int
claims_remember(struct claims *cl, const char *uuid, const char *node,
    int64_t ts, int64_t now, int64_t window_ms)
{
	struct claim		*c = &cl->ring[cl->n++ % DEQUEUE_CLAIMS];
	struct claim_hint	*h = &cl->hints[hint_slot(uuid)];
	struct claim_streak	*s = streak_of(cl, uuid, node);

	snprintf(c->uuid, sizeof c->uuid, "%s", uuid);
	snprintf(c->node, sizeof c->node, "%s", node);
	c->ts = ts;
	c->seen = now;
	snprintf(h->uuid, sizeof h->uuid, "%s", uuid);
	snprintf(h->node, sizeof h->node, "%s", node);
	h->seen = now;
	/* A streak: the same claimant again while its claim is fresh. */
	if (strcmp(s->uuid, uuid) != 0 || strcmp(s->node, node) != 0 ||
	    now - s->seen > claims_memory_ms(window_ms)) {
		s->first = now;
		s->expired = 0;
		s->newest_ts = ts;
	} else if (ts > s->newest_ts)
		s->newest_ts = ts;
	snprintf(s->uuid, sizeof s->uuid, "%s", uuid);
	snprintf(s->node, sizeof s->node, "%s", node);
	s->seen = now;
	if (s->expired || now - s->first < cl->expire_ms)
		return 0;
	s->expired = 1;
	return 1;
}

/* Its claimant claimed c's task again since: c lost, and is dead.
 * (Without a streak of theirs at hand, it counts.) */
static int
superseded(const struct claims *cl, const struct claim *c)
{
	const struct claim_streak *s = streak_of(cl, c->uuid, c->node);

	return c->ts < s->newest_ts && strcmp(s->uuid, c->uuid) == 0 &&
	    strcmp(s->node, c->node) == 0;
}

/* Remembered claim c, for uuid, heard in the claim memory before a
 * proposal (ts, who) or since, and still counting, precedes it as the
 * rule says. */
static int
precedes(const struct claims *cl, const struct claim *c, const char *uuid,
    int64_t ts, const char *who, int64_t now, int64_t window_ms)
{
	return c->seen >= ts - claims_memory_ms(window_ms) &&
	    strcmp(c->uuid, uuid) == 0 &&
	    rules_dequeue_beats(c->ts, c->node, ts, who) &&
	    !superseded(cl, c) &&
	    !expired(cl, c->uuid, c->node, now);
}

/* Proposals made in our window or shortly before it, which Algorithm
 * 3.2 misses, precede ours as the rule says. */
int
claims_beating(const struct claims *cl, const char *uuid, int64_t ts,
    const char *me, int64_t now, int64_t window_ms)
{
	int	i, lost = 0;

	for (i = 0; i < DEQUEUE_CLAIMS; i++)
		lost += precedes(cl, &cl->ring[i], uuid, ts, me, now,
		    window_ms);
	return lost;
}

int
claims_earlier(const struct claims *cl, const char *uuid, int64_t ts,
    const char *who, int64_t now, int64_t window_ms, int64_t *first)
{
	int	i, found = 0;

	for (i = 0; i < DEQUEUE_CLAIMS; i++) {
		const struct claim *c = &cl->ring[i];
		/* Cheapest tests first: the ring is mostly other tasks. */
		if (c->ts < ts && (!found || c->ts < *first) &&
		    precedes(cl, c, uuid, ts, who, now, window_ms) &&
		    strcmp(c->node, who) != 0) {
			*first = c->ts;
			found = 1;
		}
	}
	return found;
}

int
claims_beating_where(const struct claims *cl, int64_t ts, const char *me,
    int64_t now, int64_t window_ms, int (*pred)(const char *, void *),
    void *arg)
{
	const char	*seen[CLAIMS_WHERE_MAX];
	int		 i, k, n = 0;

	for (i = 0; i < DEQUEUE_CLAIMS && n < CLAIMS_WHERE_MAX; i++) {
		const struct claim *c = &cl->ring[i];
		if (c->uuid[0] == '\0' || strcmp(c->node, me) == 0 ||
		    !precedes(cl, c, c->uuid, ts, me, now, window_ms) ||
		    !pred(c->uuid, arg))
			continue;
		for (k = 0; k < n && strcmp(seen[k], c->uuid) != 0; k++)
			;
		if (k == n)
			seen[n++] = c->uuid;
	}
	return n;
}

int
claims_helper(const char *uuid, const char *claimant, const char *me,
    int pool)
{
	uint64_t	h = task_hash(uuid) ^ task_hash(claimant) * 31 ^
			    task_hash(me) * 0x9e3779b97f4a7c15ULL;

	return (h >> 16) % (uint64_t)pool < CLAIMS_HELPERS;
}
