/*
 * retire.c -- the map does not grow forever.  A task whose end was
 * confirmed (task_is_settled) leaves retention_ms after its end, once
 * every task bound to it has settled too (they may still need its
 * outputs bound).  Its last record goes to the shell (ACT_RETIRE), which
 * appends it to the history file; the journal forgets it at its next
 * compaction.  Every node retires by the same rule from the same end
 * stamp, so the maps stay equal; a record of a task we retired that a
 * peer sends late is dropped rather than taken in again.
 *
 * Settled tasks wait in a heap ordered by when they are due: a
 * housekeeping tick looks at its top, not at the map.  A task held back
 * by a dependent still running is pushed again when that one ends.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "peer.h"
#include "retire.h"
#include "task.h"
#include "wire.h"

static void
push(struct retire *r, int64_t at, const char *uuid, int giveup)
{
	size_t	i, parent;

	if (r->n == r->cap) {
		size_t cap = r->cap == 0 ? 64 : r->cap * 2;
		struct retire_due *v = realloc(r->heap, cap * sizeof *v);
		if (v == NULL)
			return;		/* retired at the next restart */
		r->heap = v;
		r->cap = cap;
	}
	for (i = r->n++; i > 0; i = parent) {
		parent = (i - 1) / 2;
		if (r->heap[parent].at <= at)
			break;
		r->heap[i] = r->heap[parent];
	}
	r->heap[i].at = at;
	r->heap[i].giveup = giveup;
	memcpy(r->heap[i].uuid, uuid, sizeof r->heap[i].uuid);
}

static struct retire_due
pop(struct retire *r)
{
	struct retire_due	top = r->heap[0], last = r->heap[--r->n];
	size_t			i = 0, c;

	while ((c = 2 * i + 1) < r->n) {
		if (c + 1 < r->n && r->heap[c + 1].at < r->heap[c].at)
			c++;
		if (last.at <= r->heap[c].at)
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	if (r->n > 0)
		r->heap[i] = last;
	return top;
}

void
retire_free(struct node *n)
{
	free(n->retire.heap);
	uuidmap_free(&n->retire.tombs);
	free(n->retire.ring);
	memset(&n->retire, 0, sizeof n->retire);
}

/* ---- tombstones: a set by uuid, and a ring in the order they expire -- */

static int
tomb_find(const struct retire *r, const char *uuid)
{
	return uuidmap_get(&r->tombs, uuid, NULL);
}

static void
tomb_add(struct retire *r, const char *uuid, int64_t until)
{
	if (r->rn == r->rcap) {
		size_t cap = r->rcap == 0 ? 64 : r->rcap * 2, k;
		struct retire_tomb *v = malloc(cap * sizeof *v);
		if (v == NULL)
			return;
		for (k = 0; k < r->rn; k++)
			v[k] = r->ring[(r->rhead + k) % r->rcap];
		free(r->ring);
		r->ring = v;
		r->rcap = cap;
		r->rhead = 0;
	}
	if (uuidmap_put(&r->tombs, uuid, until) == -1)
		return;
	memcpy(r->ring[(r->rhead + r->rn) % r->rcap].uuid, uuid,
	    UUID_STRLEN + 1);
	r->ring[(r->rhead + r->rn++) % r->rcap].until = until;
}

/* Forget the tombstones whose time is over: the oldest first. */
static void
tomb_expire(struct retire *r, int64_t now)
{
	while (r->rn > 0 && r->ring[r->rhead].until <= now) {
		struct retire_tomb *e = &r->ring[r->rhead];
		int64_t until;
		/* Unless added again since: a later entry expires it. */
		if (uuidmap_get(&r->tombs, e->uuid, &until) &&
		    until == e->until)
			uuidmap_del(&r->tombs, e->uuid);
		r->rhead = (r->rhead + 1) % r->rcap;
		r->rn--;
	}
}

/*
 * A settled task is due retention_ms after its end.  Its upstreams may
 * have been due already and waited for it: they are due again now.
 */
static void
note_upstreams(struct node *n, const struct task *t)
{
	const struct task	*up;
	int			 i;

	for (i = 0; i < t->ninputs; i++)
		if ((up = taskmap_find(&n->map, t->inputs[i].from)) != NULL &&
		    task_is_settled(up))
			push(&n->retire, up->end_ms + n->cfg.retention_ms,
			    up->uuid, 0);
}

void
retire_note(struct node *n, const struct task *t)
{
	if (n->cfg.retention_ms <= 0 || !task_is_settled(t))
		return;
	push(&n->retire, t->end_ms + n->cfg.retention_ms, t->uuid, 0);
	note_upstreams(n, t);
}

void
retire_track(struct node *n, const struct task *t)
{
	if (n->cfg.retention_ms > 0)
		push(&n->retire, t->submit_ms + 2 * n->cfg.retention_ms,
		    t->uuid, 1);
}

/* Does a task bound to t's outputs still wait for its own end? */
static int
dependents_pending(struct node *n, const struct task *t)
{
	struct task	**deps;
	size_t		  nd, k;
	int		  pending = 0;

	deps = taskmap_dependents(&n->map, t->uuid, &nd);
	for (k = 0; k < nd && !pending; k++)
		pending = !task_is_settled(deps[k]);
	free(deps);
	return pending;
}

/*
 * t leaves the map without a history record: the pool's end of it is
 * elsewhere (tomb: a late copy is not taken in again), or it never had
 * one (given up: an end confirmed elsewhere at the last moment may
 * still come, and is taken in).
 */
static void
forget(struct node *n, struct task *t, int tomb, int64_t now)
{
	if (tomb)
		tomb_add(&n->retire, t->uuid, now + n->cfg.retention_ms);
	readyq_remove(&n->ready, t);
	outbox_task(&n->out, ACT_FORGET, t->uuid);
	antientropy_gone(n, t);
	order_removed(n, t);
	t = taskmap_remove(&n->map, t->uuid);
	note_upstreams(n, t);		/* they may have waited for it */
	task_free(t);
}

static void
retire_task(struct node *n, struct task *t, int64_t now)
{
	static char	rec[RECORD_LINE_MAX];

	if (wire_task_encode(t, rec, sizeof rec) == -1)
		return;		/* cannot happen: it was journaled */
	outbox_text(&n->out, ACT_RETIRE, t->uuid, rec);
	outbox_log(&n->out, VLOG_INFO, "Task UUID{%s} name{%s} %s, ended over "
	    "the retention period ago: moved to the history", t->uuid,
	    t->exec, task_state_name(t->state));
	tomb_add(&n->retire, t->uuid, now + n->cfg.retention_ms);
	readyq_remove(&n->ready, t);
	antientropy_gone(n, t);
	order_removed(n, t);
	task_free(taskmap_remove(&n->map, t->uuid));
	n->retire.retired++;
}

int64_t
retire_next_due(const struct node *n)
{
	const struct retire	*r = &n->retire;
	int64_t			 due = -1;

	if (r->n > 0)
		due = r->heap[0].at;
	if (r->rn > 0 && (due < 0 || r->ring[r->rhead].until < due))
		due = r->ring[r->rhead].until;
	return due;
}

static void
retire_due(struct node *n, int64_t now, size_t max)
{
	struct retire	*r = &n->retire;
	struct task	*t;
	size_t		 batch = 0;

	while (r->n > 0 && r->heap[0].at <= now && batch < max) {
		struct retire_due due = pop(r);
		if ((t = taskmap_find(&n->map, due.uuid)) == NULL)
			continue;	/* it left already */
		if (due.giveup) {
			if (task_is_settled(t))
				continue;	/* it leaves as it ended */
			batch++;
			if (t->run != RUN_NONE) {
				run_stop(n, t);
				push(r, now + RETIRE_RECHECK_MS, due.uuid, 1);
				continue;
			}
			outbox_log(&n->out, VLOG_WARNING, "Task UUID{%s} "
			    "name{%s} %s, not ended two retention periods "
			    "after it was scheduled: given up, forgotten",
			    t->uuid, t->exec, task_shown_state(t));
			forget(n, t, 0, now);
			continue;
		}
		/* Ended anew later (a redo): that end pushed it again. */
		if (!task_is_settled(t) ||
		    due.at < t->end_ms + n->cfg.retention_ms)
			continue;
		batch++;
		/* A dependent's end notes it again (retire_note). */
		if (dependents_pending(n, t))
			continue;
		/* Our process of it is still being stopped. */
		if (t->run != RUN_NONE) {
			push(r, now + RETIRE_RECHECK_MS, due.uuid, due.giveup);
			continue;
		}
		retire_task(n, t, now);
	}
}

void
retire_housekeeping(struct node *n, int64_t now)
{
	retire_due(n, now, RETIRE_BATCH);
	tomb_expire(&n->retire, now);
}

/* After a restart, before any client looks: what retired before the
 * stop (the journal forgets only at its compaction) leaves at once. */
void
retire_recover(struct node *n, int64_t now)
{
	retire_due(n, now, SIZE_MAX);
}

int
retire_too_old(struct node *n, const struct task *r, const char *sender,
    int64_t now)
{
	struct peer_msg	m;

	if (n->cfg.retention_ms <= 0)
		return 0;
	if (task_is_settled(r) && r->end_ms + n->cfg.retention_ms <= now) {
		n->retire.dropped++;	/* it leaves the sender too */
		return 1;
	}
	/* Retired here within the last retention period: the sender
	 * missed its end (away, cut off), and is told its copy is stale. */
	if (tomb_find(&n->retire, r->uuid)) {
		peer_msg_init(&m, PEER_RETIRED);
		memcpy(m.uuid, r->uuid, sizeof m.uuid);
		outbox_peer(&n->out, sender, &m);
		n->retire.dropped++;
		return 1;
	}
	/* Unfinished two retention periods after it was scheduled, and new
	 * to us: most likely retired long ago by all but a node that was
	 * away that long.  Not taken in (the sender keeps its copy: we are
	 * not sure enough to make it forget). */
	if (!task_is_settled(r) &&
	    r->submit_ms + 2 * n->cfg.retention_ms <= now) {
		n->retire.dropped++;
		return 1;
	}
	return 0;
}

/*
 * A peer retired a task we hold unfinished: we missed its end, and the
 * pool has forgotten it.  Our copy is stale, and no one would ever
 * confirm an end of it again: forget it (not into our history: the
 * pool's is elsewhere).  A copy that cannot have ended that long ago
 * (submitted more recently) is kept, whatever a peer says.
 */
void
retire_recv_retired(struct node *n, const struct peer_msg *m, int64_t now)
{
	struct task	*t = taskmap_find(&n->map, m->uuid);

	if (t == NULL || n->cfg.retention_ms <= 0 || task_is_settled(t) ||
	    t->submit_ms + n->cfg.retention_ms > now)
		return;
	if (t->run != RUN_NONE) {
		run_stop(n, t);		/* forgotten at the next RETIRED */
		return;
	}
	outbox_log(&n->out, VLOG_WARNING, "Task UUID{%s} name{%s}: %s retired "
	    "it, ended over the retention period ago; our %s copy is stale: "
	    "forgotten", t->uuid, t->exec, m->sender, task_shown_state(t));
	forget(n, t, 1, now);
}
