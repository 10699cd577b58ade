/*
 * replicate.c -- every node keeps every task.  An authoritative change
 * is versioned and broadcast as the whole record (STATE); a new task
 * goes out as ENQUEUE until the master acknowledges it.  Records merge
 * by one rule (rules.c) on every node, so the maps converge; the map
 * digest in heartbeats catches what was lost (anti-entropy).  A run's
 * PROGRESS is its heartbeat: a silent remote run goes back to Ready, and
 * of two runs of one task the one with more progress stays.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "peer.h"
#include "rules.h"
#include "wire.h"

int
replicate_unacked(const struct node *n)
{
	return n->replicate.nunacked;
}

uint64_t
replicate_duplicates(const struct node *n)
{
	return n->replicate.duplicates;
}

void
replicate_changed(struct node *n, const struct task *t)
{
	antientropy_dirty(n);
	outbox_task(&n->out, ACT_JOURNAL, t->uuid);
	node_notify(n, t);
	retire_note(n, t);
}

void
replicate_send(struct node *n, const char *peer, enum peer_type type,
    const struct task *t)
{
	char		rec[DATAGRAM_MAX];
	struct peer_msg	m;
	int		len;

	if ((len = wire_task_encode(t, rec, sizeof rec - 256)) == -1) {
		outbox_log(&n->out, VLOG_ERROR, "Task UUID{%s} does not fit a "
		    "datagram; not sent", t->uuid);
		return;
	}
	peer_msg_init(&m, type);
	m.record = rec;
	m.record_len = (size_t)len;
	if (type == PEER_VOTE || (type == PEER_STATE && t->confirmed))
		outbox_peer_durable(&n->out, peer, &m);
	else
		outbox_peer(&n->out, peer, &m);
}

void
replicate_publish(struct node *n, struct task *t)
{
	t->ver++;
	replicate_changed(n, t);
	replicate_send(n, NULL, PEER_STATE, t);
}

void
replicate_enqueue(struct node *n, struct task *t)
{
	replicate_send(n, NULL, PEER_ENQUEUE, t);
	if (!node_is_master(n)) {
		t->unacked = 1;
		n->replicate.nunacked++;
	}
}

void
replicate_became_master(struct node *n)
{
	struct task	*t;
	size_t		 it = 0;

	while ((t = taskmap_next(&n->map, &it)) != NULL)
		t->unacked = 0;
	n->replicate.nunacked = 0;
}

/*
 * A peer runs (or ran) a task we run too: the run started first stays,
 * ties to the lower name; the other stops.  Both nodes compare the same
 * two start stamps -- progress would not do: each knows only the other's
 * last report, and both runs could stay.  Returns 1 if ours stays.
 */
static int
resolve_duplicate(struct node *n, struct task *t, const char *other,
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
	n->replicate.duplicates++;
	run_stop(n, t);
	snprintf(t->running_on, sizeof t->running_on, "%s", other);
	t->progress = other_progress;
	t->start_ms = other_start;
	t->heard_ms = now;
	replicate_changed(n, t);
	return 0;
}

/* Replace t by record r (same uuid), keeping what is local to us. */
static struct task *
adopt(struct node *n, struct task *t, struct task *r)
{
	readyq_remove(&n->ready, t);
	taskmap_remove(&n->map, t->uuid);
	r->run = t->run;
	memcpy(r->run_error, t->run_error, sizeof r->run_error);
	r->heard_ms = t->heard_ms;
	r->unacked = t->unacked;
	r->replied_ms = t->replied_ms;
	r->aged = r->aged || t->aged;
	task_free(t);
	if (taskmap_insert(&n->map, r) == -1) {
		task_free(r);
		return NULL;
	}
	return r;
}

/*
 * Every bound input of t is an output of the result we keep upstream.  A
 * bound input whose upstream has no confirmed result here (redone, or
 * its result not seen yet) cannot be judged; nor can an unknown
 * upstream.
 */
static int
inputs_kept(const struct node *n, const struct task *t)
{
	int	i;

	for (i = 0; i < t->ninputs; i++) {
		const struct task_input *in = &t->inputs[i];
		const struct task *up;
		if (in->dataset == NULL ||
		    (up = taskmap_find(&n->map, in->from)) == NULL ||
		    !task_result_kept(up))
			continue;
		if (in->nth > up->noutputs ||
		    strcmp(in->dataset, up->outputs[in->nth - 1]) != 0)
			return 0;
	}
	return 1;
}

/*
 * Does record r replace our t?  First, the one whose inputs agree with
 * the upstream results we keep (the other ran on a result that was not
 * kept: a partition); upstream results converge everywhere, so this
 * choice does too.  Then the rules every node shares.
 */
static int
record_wins(const struct node *n, const struct task *r, const struct task *t)
{
	int	rk = inputs_kept(n, r), tk = inputs_kept(n, t);

	if (rk != tk)
		return rk;
	return rules_record_wins(r, t);
}

/* A record of a task we run ourselves: our run decides for itself. */
static void
merge_own_run(struct node *n, struct task *t, struct task *r, int64_t now)
{
	if (r->ver < t->ver)
		return;
	if (r->state == TASK_RUNNING &&
	    strcmp(r->running_on, n->cfg.name) != 0) {
		if (resolve_duplicate(n, t, r->running_on, r->progress,
		    r->start_ms, now)) {
			t->ver = r->ver > t->ver ? r->ver : t->ver;
			antientropy_dirty(n);
		}
		return;
	}
	/* Someone thinks our run died: it did not. */
	t->ver = r->ver;
	replicate_publish(n, t);
}

/*
 * A record from a peer (ENQUEUE, STATE or VOTE): merge it into our map.
 * The record's uuid goes to uuid if it decoded ("" if not).  A STATE
 * proposing an end is answered with our vote.
 */
static void
merge_record(struct node *n, const struct peer_msg *m, int64_t now,
    char *uuid)
{
	struct task	*r, *t;
	char		 err[128];
	int		 proposal;

	if ((r = wire_task_decode(m->record, m->record_len, err,
	    sizeof err)) == NULL) {
		outbox_log(&n->out, VLOG_DEBUG, "bad %s from %s: %s; dropped",
		    peer_type_name(m->type), m->sender, err);
		uuid[0] = '\0';
		return;
	}
	memcpy(uuid, r->uuid, UUID_STRLEN + 1);
	schedule_saw(n, r->submit_ms);
	proposal = m->type == PEER_STATE && task_is_final(r->state) &&
	    !r->confirmed;
	if ((t = taskmap_find(&n->map, r->uuid)) == NULL) {
		if (retire_too_old(n, r, m->sender, now)) {
			task_free(r);	/* in the history already */
			return;
		}
		r->run = RUN_NONE;
		if (taskmap_insert(&n->map, r) == -1) {
			task_free(r);
			return;
		}
		retire_track(n, r);
		node_log_task(n, VLOG_INFO, r, NULL);
		cascade_derive(n, r, now);
		if (proposal && (t = taskmap_find(&n->map, uuid)) != NULL)
			confirm_answer(n, m->sender, t);
		return;
	}
	/* Our own run of it decides for itself; an older claim is stale. */
	if (t->run == RUN_ACTIVE && t->state == TASK_RUNNING &&
	    !task_is_final(r->state)) {
		merge_own_run(n, t, r, now);
		task_free(r);
		return;
	}
	if (!record_wins(n, r, t)) {
		if (proposal) {
			confirm_answer(n, m->sender, t);
			task_free(r);
			return;
		}
		/* The sender is behind: tell it what we have -- once per
		 * progress interval, so two nodes that disagree for a while
		 * (a healing partition) do not echo each other forever. */
		if (record_wins(n, t, r) && m->type == PEER_STATE &&
		    now - t->replied_ms >= n->cfg.progress_interval_ms) {
			t->replied_ms = now;
			replicate_send(n, m->sender, PEER_STATE, t);
		}
		task_free(r);
		return;
	}
	if ((t = adopt(n, t, r)) == NULL)
		return;
	outbox_log(&n->out, VLOG_DEBUG, "Task UUID{%s} State{%s} received "
	    "from {%s}", t->uuid, task_state_name(t->state), m->sender);
	if (t->state == TASK_TERMINATED || t->state == TASK_READY ||
	    task_is_final(t->state))
		node_log_task(n, VLOG_INFO, t, NULL);
	cascade_derive(n, t, now);
	if (proposal && (t = taskmap_find(&n->map, uuid)) != NULL)
		confirm_answer(n, m->sender, t);
}

void
replicate_recv_enqueue(struct node *n, const struct peer_msg *m,
    int64_t now)
{
	char		uuid[UUID_STRLEN + 1];
	struct peer_msg	ack;

	merge_record(n, m, now, uuid);
	if (node_is_master(n) && uuid[0] != '\0') {
		peer_msg_init(&ack, PEER_ENQUEUE_ACK);
		memcpy(ack.uuid, uuid, sizeof ack.uuid);
		outbox_peer(&n->out, m->sender, &ack);
	}
}

void
replicate_recv_enqueue_ack(struct node *n, const struct peer_msg *m)
{
	struct task	*t;

	if (strcmp(m->sender, election_master(n)) == 0 &&
	    (t = taskmap_find(&n->map, m->uuid)) != NULL && t->unacked) {
		t->unacked = 0;
		n->replicate.nunacked--;
	}
}

void
replicate_recv_state(struct node *n, const struct peer_msg *m, int64_t now)
{
	char	uuid[UUID_STRLEN + 1];

	merge_record(n, m, now, uuid);
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
replicate_recv_progress(struct node *n, const struct peer_msg *m,
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
			resolve_duplicate(n, t, m->sender, m->percent,
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

void
replicate_recv_get_task(struct node *n, const struct peer_msg *m)
{
	const struct task	*t;

	if ((t = taskmap_find(&n->map, m->uuid)) != NULL)
		replicate_send(n, m->sender, PEER_ENQUEUE, t);
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

void
replicate_housekeeping(struct node *n, int64_t now)
{
	struct task	*t;
	struct peer_msg	 m;
	size_t		 it = 0;
	int		 resent = 0;

	while ((t = taskmap_next(&n->map, &it)) != NULL) {
		if (t->state == TASK_RUNNING && t->run == RUN_ACTIVE) {
			peer_msg_init(&m, PEER_PROGRESS);
			memcpy(m.uuid, t->uuid, sizeof m.uuid);
			m.percent = t->progress;
			m.ver = t->ver;
			m.timestamp = t->start_ms;
			outbox_peer(&n->out, NULL, &m);
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
}
