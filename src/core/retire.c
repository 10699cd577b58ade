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
 * housekeeping tick looks at its top, not at the map.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "retire.h"
#include "task.h"
#include "wire.h"

static void
push(struct retire *r, int64_t at, const char *uuid)
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
	memset(&n->retire, 0, sizeof n->retire);
}

void
retire_note(struct node *n, const struct task *t)
{
	if (n->cfg.retention_ms > 0 && task_is_settled(t))
		push(&n->retire, t->end_ms + n->cfg.retention_ms, t->uuid);
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

static void
retire_task(struct node *n, struct task *t)
{
	static char	rec[RECORD_LINE_MAX];

	if (wire_task_encode(t, rec, sizeof rec) == -1)
		return;		/* cannot happen: it was journaled */
	outbox_text(&n->out, ACT_RETIRE, t->uuid, rec);
	outbox_log(&n->out, VLOG_INFO, "Task UUID{%s} name{%s} %s, ended over "
	    "the retention period ago: moved to the history", t->uuid,
	    t->exec, task_state_name(t->state));
	readyq_remove(&n->ready, t);
	task_free(taskmap_remove(&n->map, t->uuid));
	antientropy_dirty(n);
	n->retire.retired++;
}

static void
retire_due(struct node *n, int64_t now, size_t max)
{
	struct retire	*r = &n->retire;
	struct task	*t;
	size_t		 batch = 0;

	while (r->n > 0 && r->heap[0].at <= now && batch < max) {
		struct retire_due due = pop(r);
		/* It left already, or ended anew later (a redo): that end
		 * pushed it again. */
		if ((t = taskmap_find(&n->map, due.uuid)) == NULL ||
		    !task_is_settled(t) ||
		    due.at < t->end_ms + n->cfg.retention_ms)
			continue;
		batch++;
		if (t->run != RUN_NONE || dependents_pending(n, t)) {
			push(r, now + RETIRE_RECHECK_MS, due.uuid);
			continue;
		}
		retire_task(n, t);
	}
}

void
retire_housekeeping(struct node *n, int64_t now)
{
	retire_due(n, now, RETIRE_BATCH);
}

/* After a restart, before any client looks: what retired before the
 * stop (the journal forgets only at its compaction) leaves at once. */
void
retire_recover(struct node *n, int64_t now)
{
	retire_due(n, now, SIZE_MAX);
}

int
retire_too_old(struct node *n, const struct task *r, int64_t now)
{
	int64_t	keep = n->cfg.retention_ms;

	if (keep <= 0)
		return 0;
	if ((task_is_settled(r) && r->end_ms + keep <= now) ||
	    (!task_is_settled(r) && r->submit_ms + keep <= now)) {
		n->retire.dropped++;
		return 1;
	}
	return 0;
}
