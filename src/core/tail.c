/*
 * tail.c -- the last runs of a bag, replicated (tail.h).
 *
 * Anglano et al.'s WQR without a server: the taker decides, since only
 * it may sign a new task's origin, and every node derives the ends that
 * follow, since any of them may be the one that confirms a copy's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "statement.h"
#include "wire.h"

#define TAIL_WON	"tail-won:"
#define TAIL_DONE	"tail-done:"

void
tail_status(const struct node *n, struct node_status *st)
{
	st->tail_made = n->tail.made;
	st->tail_won = n->tail.won;
	st->tail_stopped = n->tail.stopped;
	st->tail_wasted_ms = n->tail.wasted_ms;
}

int
tail_is_replica(const struct task *t)
{
	return t->replica_of[0] != '\0' && t->verify == 0;
}

void
tail_uuid(const char *of, int index, char out[UUID_STRLEN + 1])
{
	static const char	 hex[] = "0123456789abcdef";
	statement		 st;
	uint8_t			 h[STATEMENT_BYTES];
	int			 i, o = 0;

	statement_init(&st, "volery-tail1");
	statement_str(&st, of);
	statement_num(&st, index);
	statement_final(&st, h);
	h[6] = (uint8_t)((h[6] & 0x0f) | 0x40);	/* version 4 */
	h[8] = (uint8_t)((h[8] & 0x3f) | 0x80);	/* its variant */
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[h[i] >> 4];
		out[o++] = hex[h[i] & 15];
	}
	out[o] = '\0';
}

/* Is r a replica of t made by t's taker?  No other node may make one:
 * its result would be t's without t's taker's word for its program. */
static int
replica_of(const struct task *r, const struct task *t)
{
	return tail_is_replica(r) && strcmp(r->replica_of, t->uuid) == 0 &&
	    strcmp(r->scheduled_by, t->scheduled_by) == 0;
}

/* Replica k (0 to TAIL_MAX - 1) of t, if held (and it is one: a task
 * that only has its uuid is not). */
static struct task *
replica(const struct node *n, const struct task *t, int k)
{
	char		 uuid[UUID_STRLEN + 1];
	struct task	*r;

	tail_uuid(t->uuid, TAIL_INDEX_BASE + k, uuid);
	if ((r = taskmap_find(&n->map, uuid)) == NULL || !replica_of(r, t))
		return NULL;
	return r;
}

/* Copies of t going (it, if Running, and its replicas not ended), and
 * in *next the index its next replica would take (TAIL_MAX: none). */
static int
copies(const struct node *n, const struct task *t, int *next)
{
	const struct task	*r;
	int			 k, going = t->state == TASK_RUNNING;

	*next = 0;
	for (k = 0; k < TAIL_MAX; k++) {
		if ((r = replica(n, t, k)) == NULL)
			continue;
		going += !task_is_final(r->state);
		*next = k + 1;
	}
	return going;
}

/* r, a fresh copy of t's record, as a replica that has not run. */
static void
fresh(struct task *r, const struct task *t, int k)
{
	tail_uuid(t->uuid, TAIL_INDEX_BASE + k, r->uuid);
	snprintf(r->replica_of, sizeof r->replica_of, "%s", t->uuid);
	r->replica_index = TAIL_INDEX_BASE + k;
	r->array[0] = '\0';		/* the task is the array's, not it */
	r->array_index = r->array_max = 0;
	r->state = TASK_SUBMITTED;
	r->running_on[0] = r->reason[0] = '\0';
	r->ready_ms = r->start_ms = r->end_ms = -1;
	r->progress = r->attempts = r->failures = r->suspended = 0;
	r->retry_ms = 0;
	r->held = r->confirmed = r->round = 0;
	r->exit_status = -1;
	r->cpu_ms = r->maxrss_kib = -1;
	task_set_outputs(r, NULL, 0);
	task_set_string(&r->sig, NULL);
	task_set_string(&r->esg, NULL);
	task_set_string(&r->qc, NULL);
	task_set_string(&r->vote, NULL);
	task_set_string(&r->digest, NULL);
	task_set_string(&r->tries, NULL);
	task_set_string(&r->ckpt, NULL);
	r->eby[0] = '\0';
	r->esg_ok = 0;
}

/* Replica k of t, a task of ours running: made, signed, sent. */
static void
make(struct node *n, const struct task *t, int k, int64_t now)
{
	char		 err[REASON_MAXLEN + 1];
	struct task	*r;

	if ((r = wire_task_copy(t, err, sizeof err)) == NULL) {
		outbox_log(&n->out, VLOG_ERROR, "Task UUID{%s}: no tail "
		    "replica, its record cannot be copied", t->uuid);
		return;
	}
	fresh(r, t, k);
	origin_sign(n, r);
	if (taskmap_find(&n->map, r->uuid) != NULL) {
		task_free(r);	/* taken: a record a peer made first */
		return;
	}
	if (taskmap_insert(&n->map, r) == -1) {
		task_free(r);
		outbox_log(&n->out, VLOG_ERROR, "out of memory");
		return;
	}
	n->tail.made++;
	outbox_log(&n->out, VLOG_NORMAL, "Task UUID{%s} name{%s} of %s, "
	    "running on %s, should end last: replica %d UUID{%s} made for "
	    "an idle node", t->uuid, t->exec, t->user[0] != '\0' ? t->user :
	    "-", t->running_on, k + 1, r->uuid);
	schedule_enter(n, r, now);
}

/* When t's run should end: its start, plus its type's learned run time
 * at its runner's learned speed (EffCPU: a slow node's run ends last). */
static int64_t
expected_end(const struct node *n, const struct task *t)
{
	const struct peer	*p;
	int64_t			 est;
	int			 speed = 0;

	if (strcmp(t->running_on, n->cfg.name) == 0)
		speed = placement_speed(n);
	else if ((p = peertab_at(n, peertab_index(n, t->running_on))) !=
	    NULL)
		speed = p->speed;
	if ((est = estimate_task_ms(n, t, speed > 0 ? speed :
	    SPEED_UNIT)) < 0)
		est = estimate_task_rank_ms(n, t);
	return t->start_ms + est;
}

struct candidate {
	struct task	*t;
	int64_t		 end;	/* when its run should end */
	int		 next;	/* its next replica's index */
};

static int
later_first(const void *a, const void *b)
{
	const struct candidate	*x = a, *y = b;

	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return strcmp(x->t->uuid, y->t->uuid);
}

/*
 * Nothing waits and nodes stand idle: each of our runs that should end
 * last, as many as there are idle nodes, gets one more copy, up to the
 * threshold (Anglano et al.'s LRET for replicas).  A replica waits in
 * the queue until taken, so the next look makes none; the runs are the
 * pool's, so this is no walk of the map.
 */
void
tail_housekeeping(struct node *n, int64_t now)
{
	struct task		**v, *t;
	struct candidate	 *c;
	size_t			  count, i, nc = 0;
	int			  idle, nx;

	if (n->cfg.replicate_tail < 2 || readyq_len(&n->ready) > 0)
		return;
	idle = peertab_idle_count(n, now) + (run_volunteering(n) &&
	    run_count(n) < n->cfg.slots);
	if (idle <= 0)
		return;
	v = runwatch_running(n, &count);
	if (v == NULL || (c = calloc(count, sizeof *c)) == NULL) {
		free(v);
		return;
	}
	for (i = 0; i < count; i++) {
		t = v[i];
		if (t->state != TASK_RUNNING || task_is_replica(t) ||
		    strcmp(t->scheduled_by, n->cfg.name) != 0 ||
		    copies(n, t, &nx) >= n->cfg.replicate_tail ||
		    nx >= TAIL_MAX)
			continue;
		c[nc].t = t;
		c[nc].end = expected_end(n, t);
		c[nc++].next = nx;
	}
	qsort(c, nc, sizeof *c, later_first);
	for (i = 0; i < nc && i < (size_t)idle; i++)
		make(n, c[i].t, c[i].next, now);
	free(c);
	free(v);
}

int
tail_admissible(const struct node *n, const struct task *t, char *why,
    size_t whylen)
{
	const struct task	*o, *c;
	int			 k;

	/* Only a task that ran may have replicas. */
	if (!tail_is_replica(t) && t->attempts == 0)
		return 1;
	o = tail_is_replica(t) ? taskmap_find(&n->map, t->replica_of) : t;
	for (k = -1; o != NULL && k < TAIL_MAX; k++) {
		c = k < 0 ? o : replica(n, o, k);
		if (c != NULL && c != t && c->state == TASK_RUNNING &&
		    strcmp(c->running_on, n->cfg.name) == 0) {
			snprintf(why, whylen, "a copy of %s runs here",
			    o->uuid);
			return 0;
		}
	}
	return 1;
}

/* t, a copy another copy's end stops: its run here is wasted. */
static void
lost(struct node *n, const struct task *t, int64_t now)
{
	if (t->state != TASK_RUNNING || t->run != RUN_ACTIVE ||
	    strcmp(t->running_on, n->cfg.name) != 0)
		return;
	n->tail.stopped++;
	n->tail.wasted_ms += now - t->start_ms;
	outbox_log(&n->out, VLOG_NORMAL, "Task UUID{%s} name{%s} of %s "
	    "stopped on %s: a copy ended first (%" PRId64 " ms run "
	    "wasted)", t->uuid, t->exec, t->user[0] != '\0' ? t->user : "-",
	    n->cfg.name, now - t->start_ms);
}

void
tail_settled(struct node *n, const struct task *t, int64_t now,
    int propose)
{
	struct task	*o, *r;
	char		 why[REASON_MAXLEN + 1];
	int		 k;

	if (tail_is_replica(t)) {
		/* A replica's result is its task's, if the task has none. */
		if (t->state != TASK_TERMINATED ||
		    (o = taskmap_find(&n->map, t->replica_of)) == NULL ||
		    !replica_of(t, o) || task_is_final(o->state))
			return;
		lost(n, o, now);
		if (task_set_outputs(o, t->outputs, t->noutputs) == -1) {
			outbox_log(&n->out, VLOG_ERROR, "out of memory");
			return;
		}
		o->progress = 100;
		n->tail.won++;
		snprintf(why, sizeof why, TAIL_WON "%s", t->uuid);
		cascade_end_derived(n, o, TASK_TERMINATED, why, now, propose);
		return;
	}
	if (task_is_replica(t))
		return;			/* --verify's */
	snprintf(why, sizeof why, TAIL_DONE "%s", t->uuid);
	for (k = 0; k < TAIL_MAX; k++) {
		if ((r = replica(n, t, k)) == NULL ||
		    task_is_final(r->state))
			continue;
		lost(n, r, now);
		cascade_end_derived(n, r, TASK_CANCELLED, why, now, propose);
	}
}

int
tail_derived(const struct node *n, const struct task *r,
    enum task_state state)
{
	const struct task	*c;

	if (state == TASK_TERMINATED && !task_is_replica(r) &&
	    strncmp(r->reason, TAIL_WON, strlen(TAIL_WON)) == 0)
		return (c = taskmap_find(&n->map, r->reason +
		    strlen(TAIL_WON))) != NULL && replica_of(c, r) &&
		    c->state == TASK_TERMINATED && c->confirmed &&
		    task_same_outputs(c, r);
	if (state == TASK_CANCELLED && tail_is_replica(r) &&
	    strncmp(r->reason, TAIL_DONE, strlen(TAIL_DONE)) == 0 &&
	    strcmp(r->reason + strlen(TAIL_DONE), r->replica_of) == 0)
		return (c = taskmap_find(&n->map, r->replica_of)) != NULL &&
		    replica_of(r, c) && task_is_settled(c);
	return 0;
}
