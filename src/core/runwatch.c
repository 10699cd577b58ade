/*
 * runwatch.c -- watching runs: our runs' PROGRESS heartbeats, the
 * silence of remote runs (failure detection), two runs of one task
 * (duplicates), and ENQUEUEs the master has not acknowledged yet.
 * Housekeeping looks at the tasks watched -- Running or unacked --
 * not at the whole map: a finished task costs no tick.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "rules.h"
#include "task.h"

void
runwatch_free(struct node *n)
{
	uuidlist_free(&n->runwatch.watched);
}

uint64_t
runwatch_duplicates(const struct node *n)
{
	return n->runwatch.duplicates;
}

void
runwatch_watch(struct node *n, const struct task *t)
{
	if (t->state == TASK_RUNNING || t->unacked)
		uuidlist_add(&n->runwatch.watched, t->uuid);
}

/* The watched tasks still Running (or, unless running_only, unacked),
 * in map order: as a walk of the whole map would meet them. */
static struct task **
watched_where(const struct node *n, int running_only, size_t *count)
{
	const struct uuidlist *w = &n->runwatch.watched;
	struct task	**v;
	size_t		  k, kept = 0;

	v = taskmap_in_order(&n->map, (const char (*)[UUID_STRLEN + 1])w->v,
	    w->n, count);
	for (k = 0; k < *count; k++)
		if (v[k]->state == TASK_RUNNING ||
		    (!running_only && v[k]->unacked))
			v[kept++] = v[k];
	*count = kept;
	return v;
}

struct task **
runwatch_running(const struct node *n, size_t *count)
{
	return watched_where(n, 1, count);
}

const char (*runwatch_watched(const struct node *n,
    size_t *count))[UUID_STRLEN + 1]
{
	*count = n->runwatch.watched.n;
	return (const char (*)[UUID_STRLEN + 1])n->runwatch.watched.v;
}

/*
 * A peer runs (or ran) a task we run too: the run started first stays,
 * ties to the lower name; the other stops.  Both nodes compare the same
 * two start stamps -- progress would not do: each knows only the other's
 * last report, and both runs could stay.  Returns 1 if ours stays.
 */
int
runwatch_resolve_duplicate(struct node *n, struct task *t, const char *other,
    int other_progress, int64_t other_start, int64_t now)
{
	if (rules_run_beats(t->start_ms, n->cfg.name, other_start, other)) {
		/* Ours stays: make every node believe it. */
		outbox_log(&n->out, VLOG_WARNING, "Task UUID{%s} also runs on "
		    "%s (%d%%); ours (%d%%) stays", t->uuid, other,
		    other_progress, t->progress);
		replicate_publish(n, t);
		return 1;
	}
	outbox_log(&n->out, VLOG_WARNING, "Task UUID{%s} also runs on %s "
	    "(%d%%); ours (%d%%) stops", t->uuid, other, other_progress,
	    t->progress);
	n->runwatch.duplicates++;
	run_stop(n, t);
	snprintf(t->running_on, sizeof t->running_on, "%s", other);
	t->progress = other_progress;
	t->start_ms = other_start;
	t->heard_ms = now;
	replicate_changed(n, t);
	return 0;
}

static void
get_task(struct node *n, const char *peer, const char *uuid)
{
	struct peer_msg	m;

	peer_msg_init(&m, PEER_GET_TASK);
	snprintf(m.uuid, sizeof m.uuid, "%s", uuid);
	outbox_peer(&n->out, peer, &m);
}

void
runwatch_recv_progress(struct node *n, const struct peer_msg *m,
    int64_t now)
{
	struct task	*t = taskmap_find(&n->map, m->uuid);

	if (t == NULL) {
		if (election_master(n)[0] != '\0' && !node_is_master(n))
			get_task(n, election_master(n), m->uuid);
		return;
	}
	if (task_is_final(t->state)) {
		/* The sender missed the end: tell it (it stops its run). */
		if (now - t->replied_ms >= n->cfg.progress_interval_ms) {
			t->replied_ms = now;
			replicate_send(n, m->sender, PEER_STATE, t);
		}
		return;
	}
	if (t->run == RUN_ACTIVE && t->state == TASK_RUNNING) {
		if (m->ver >= t->ver)
			runwatch_resolve_duplicate(n, t, m->sender, m->percent,
			    m->timestamp, now);
		return;
	}
	if (t->state != TASK_RUNNING ||
	    strcmp(t->running_on, m->sender) != 0) {
		/* We missed its STATE Running: believe the heartbeat. */
		readyq_remove(&n->ready, t);
		t->state = TASK_RUNNING;
		snprintf(t->running_on, sizeof t->running_on, "%s",
		    m->sender);
		if (m->ver > t->ver)
			t->ver = m->ver;
		t->heard_ms = now;
		t->progress = m->percent;
		replicate_changed(n, t);
		return;
	}
	t->heard_ms = now;
	t->suspect = 0;
	if (t->progress != m->percent) {
		t->progress = m->percent;
		node_notify(n, t);
	}
}

/*
 * A remote run silent for failure_timeout_ms: first ask its runner and
 * the master (silence may be a result we missed), then give it back to
 * Ready.
 */
static void
detect_failure(struct node *n, struct task *t, int64_t now)
{
	const char	*master = election_master(n);

	if (!t->suspect) {
		t->suspect = 1;
		t->heard_ms = now - n->cfg.failure_timeout_ms +
		    2 * n->cfg.progress_interval_ms;
		get_task(n, t->running_on, t->uuid);
		if (master[0] != '\0' && !node_is_master(n) &&
		    strcmp(master, t->running_on) != 0)
			get_task(n, master, t->uuid);
		return;
	}
	outbox_log(&n->out, VLOG_WARNING, "Task UUID{%s} name{%s}: no progress "
	    "from %s for %lld ms; back to Ready", t->uuid, t->exec,
	    t->running_on, (long long)(now - t->heard_ms));
	t->suspect = 0;
	cascade_make_ready(n, t, now);
	replicate_publish(n, t);
}

int
runwatch_watching(const struct node *n)
{
	return n->runwatch.watched.n > 0;
}

/* The tasks housekeeping looks at; the others leave the list. */
static struct task **
watched_in_order(struct node *n, size_t *count)
{
	struct uuidlist	 *w = &n->runwatch.watched;
	struct task	**v;
	size_t		  k;

	if ((v = watched_where(n, 0, count)) == NULL)
		return NULL;	/* none there (pruned later), or no memory */
	w->n = 0;
	for (k = 0; k < *count; k++)
		uuidlist_add(w, v[k]->uuid);
	return v;
}

void
runwatch_housekeeping(struct node *n, int64_t now)
{
	struct task	**v, *t;
	struct peer_msg	  m;
	size_t		  k, count;
	int		  resent = 0;

	v = watched_in_order(n, &count);
	for (k = 0; k < count; k++) {
		t = v[k];
		/* A run being vacated too: its last checkpoint comes. */
		if (t->state == TASK_RUNNING && (t->run == RUN_ACTIVE ||
		    t->vacating)) {
			peer_msg_init(&m, PEER_PROGRESS);
			memcpy(m.uuid, t->uuid, sizeof m.uuid);
			m.percent = t->progress;
			m.ver = t->ver;
			m.timestamp = t->start_ms;
			outbox_peer(&n->out, NULL, &m);
			ckpt_housekeeping(n, t, now);
		} else if (t->state == TASK_RUNNING &&
		    strcmp(t->running_on, n->cfg.name) != 0 &&
		    now - t->heard_ms > n->cfg.failure_timeout_ms)
			detect_failure(n, t, now);
		if (t->unacked && election_master(n)[0] != '\0' &&
		    resent < 64) {
			replicate_send(n, NULL, PEER_ENQUEUE, t);
			resent++;
		}
	}
	free(v);
}

/* The tasks running on that node, as we know them (NODES). */
int
node_running_on(const struct node *n, const char *name)
{
	size_t		  k, count = 0;
	struct task	**v = runwatch_running(n, &count);
	int		  busy = 0;

	for (k = 0; v != NULL && k < count; k++)
		busy += strcmp(v[k]->running_on, name) == 0;
	free(v);
	return busy;
}
