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

#include "arraycap.h"
#include "nodestate.h"
#include "peer.h"
#include "rules.h"
#include "wire.h"

int
replicate_unacked(const struct node *n)
{
	return n->replicate.nunacked;
}

void
replicate_changed(struct node *n, struct task *t)
{
	taskmap_touch(&n->map);
	confirm_changed(n, t);
	antientropy_changed(n, t);
	outbox_task(&n->out, ACT_JOURNAL, t->uuid);
	node_notify(n, t);
	retire_note(n, t);
	runwatch_watch(n, t);
}

/* replicate_send, a STATE maybe marked as its proposer's ask to all. */
static void
send_record(struct node *n, const char *peer, enum peer_type type,
    const struct task *t, int again)
{
	char		rec[DATAGRAM_MAX];
	struct peer_msg	m;
	int		len;

	/* Ours to state: signed (once per change) on its way out. */
	authorship_sign(n, (struct task *)t);
	if (type == PEER_VOTE)		/* and a vote, by its voter */
		quorum_vote_on(n, (struct task *)t);
	len = wire_task_encode(t, rec, sizeof rec - 256);
	if (type == PEER_VOTE)
		quorum_vote_done((struct task *)t);
	if (len == -1) {
		outbox_log(&n->out, VLOG_ERROR, "Task UUID{%s} does not fit a "
		    "datagram; not sent", t->uuid);
		return;
	}
	peer_msg_init(&m, type);
	m.record = rec;
	m.record_len = (size_t)len;
	m.again = again;
	if (type == PEER_VOTE || (type == PEER_STATE && t->confirmed))
		outbox_peer_durable(&n->out, peer, &m);
	else
		outbox_peer(&n->out, peer, &m);
}

void
replicate_send(struct node *n, const char *peer, enum peer_type type,
    const struct task *t)
{
	send_record(n, peer, type, t, 0);
}

void
replicate_ask_votes(struct node *n, const struct task *t)
{
	send_record(n, NULL, PEER_STATE, t, 1);
}

void
replicate_publish(struct node *n, struct task *t)
{
	if (t->ver < COUNTER_MAX)	/* never wraps (bounds.h) */
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
		runwatch_watch(n, t);
	}
}

void
replicate_became_master(struct node *n)
{
	const char	(*w)[UUID_STRLEN + 1];
	struct task	 *t;
	size_t		  k, count;

	/* Every unacked task is watched. */
	w = runwatch_watched(n, &count);
	for (k = 0; k < count; k++)
		if ((t = taskmap_find(&n->map, w[k])) != NULL)
			t->unacked = 0;
	n->replicate.nunacked = 0;
}

/* r and t bind the same upstreams, of the same workflow, ranked alike:
 * the map's dependency index and the queue's keys hold for both. */
static int
same_place(const struct task *t, const struct task *r)
{
	int	i;

	if (t->ninputs != r->ninputs || t->prio != r->prio ||
	    t->submit_ms != r->submit_ms ||
	    strcmp(task_workflow(t), task_workflow(r)) != 0)
		return 0;
	for (i = 0; i < t->ninputs; i++)
		if (strcmp(t->inputs[i].from, r->inputs[i].from) != 0)
			return 0;
	return 1;
}

/* Replace t by record r (same uuid), keeping what is local to us. */
static struct task *
adopt(struct node *n, struct task *t, struct task *r)
{
	struct task	swap;
	int		in;

	readyq_remove(&n->ready, t);
	antientropy_gone(n, t);
	if (r->state == TASK_READY && t->state >= TASK_RUNNING)
		dequeue_requeued(n, t->uuid);	/* it ran, and will again */
	r->run = t->run;
	r->throttled = t->throttled;
	r->vacating = t->vacating;
	memcpy(r->run_error, t->run_error, sizeof r->run_error);
	r->heard_ms = t->heard_ms;
	ckpt_adopt(r, t);
	r->unacked = t->unacked;
	r->replied_ms = t->replied_ms;
	r->aged = r->aged || t->aged;
	if (same_place(t, r)) {
		/* The common case, a newer state: r's fields move into t,
		 * where the map and the queue's keys already are. */
		r->urgent = t->urgent;
		r->wf_submit_ms = t->wf_submit_ms;
		r->path_left = t->path_left;
		r->rest_ms = t->rest_ms;
		swap = *t;
		*t = *r;
		*r = swap;
		task_free(r);
		taskmap_touch(&n->map);
		return t;
	}
	taskmap_remove(&n->map, t->uuid);
	in = taskmap_insert(&n->map, r) == 0;
	order_replaced(n, t, in ? r : NULL);
	task_free(t);
	if (!in) {
		task_free(r);
		return NULL;
	}
	return r;	/* cascade_derive counts it (replicate_changed) */
}

struct task *
replicate_local_change(struct node *n, struct task *t, struct task *r,
    int64_t now)
{
	char	uuid[UUID_STRLEN + 1];

	memcpy(uuid, t->uuid, sizeof uuid);
	r->ver = t->ver;
	if ((t = adopt(n, t, r)) == NULL)
		return NULL;
	cascade_derive(n, t, now);
	if ((t = taskmap_find(&n->map, uuid)) != NULL)
		replicate_publish(n, t);
	return t;
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

/* r and t bind the same datasets to the same inputs. */
static int
same_bindings(const struct task *r, const struct task *t)
{
	int	i;

	if (r->ninputs != t->ninputs)
		return 0;
	for (i = 0; i < r->ninputs; i++) {
		const struct task_input *a = &r->inputs[i], *b = &t->inputs[i];
		if (a->nth != b->nth || strcmp(a->from, b->from) != 0 ||
		    (a->dataset == NULL) != (b->dataset == NULL) ||
		    (a->dataset != NULL && strcmp(a->dataset, b->dataset) != 0))
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
	int	rk, tk;

	/* Bound alike (nearly always): their inputs agree alike. */
	if (same_bindings(r, t))
		return rules_record_wins(r, t);
	rk = inputs_kept(n, r);
	tk = inputs_kept(n, t);
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
		if (runwatch_resolve_duplicate(n, t, r->running_on, r->progress,
		    r->start_ms, now)) {
			t->ver = r->ver > t->ver ? r->ver : t->ver;
			antientropy_changed(n, t);
		}
		return;
	}
	/* Someone thinks our run died: it did not. */
	t->ver = r->ver;
	replicate_publish(n, t);
}

struct task *
replicate_decode(struct node *n, const struct peer_msg *m, int64_t now)
{
	struct task	*r;
	char		 err[REASON_MAXLEN + 1];

	if ((r = wire_task_decode(m->record, m->record_len, err,
	    sizeof err)) == NULL) {
		outbox_log(&n->out, VLOG_DEBUG, "bad %s from %s: %s; dropped",
		    peer_type_name(m->type), m->sender, err);
		return NULL;
	}
	if (!plausible_record(n, m->sender, r, now)) {
		task_free(r);
		return NULL;
	}
	return r;
}

/*
 * A record from a peer (ENQUEUE, STATE or VOTE): merge it into our map.
 * The record's uuid goes to uuid if it decoded ("" if not).  A STATE
 * proposing an end is answered with our vote if we are among its
 * first voters (voters.h), if its proposer asks every voter, or if we
 * held that end, or another, already.
 */
static void
merge_record(struct node *n, const struct peer_msg *m, int64_t now,
    char *uuid)
{
	struct task	*r, *t;
	int		 proposal;

	if ((r = replicate_decode(n, m, now)) == NULL) {
		uuid[0] = '\0';
		return;
	}
	memcpy(uuid, r->uuid, UUID_STRLEN + 1);
	schedule_saw(n, r->submit_ms);
	proposal = m->type == PEER_STATE && task_is_final(r->state) &&
	    !r->confirmed;
	if ((t = taskmap_find(&n->map, r->uuid)) == NULL) {
		if (!origin_admit(n, m->sender, r)) {
			plausible_forged_origin(n, m->sender, r, now);
			task_free(r);
			return;
		}
		if (!authorship_admit(n, m, r, NULL, now)) {
			task_free(r);
			return;
		}
		quorum_admit(n, m->sender, r, NULL, now);
		if (retire_too_old(n, r, m->sender, now)) {
			task_free(r);	/* in the history already */
			return;
		}
		r->run = RUN_NONE;
		if (taskmap_insert(&n->map, r) == -1) {
			task_free(r);
			return;
		}
		order_added(n, r);
		retire_track(n, r);
		node_log_task(n, VLOG_INFO, r, NULL);
		run_warn_not_here(n, r, m->sender);
		cascade_derive(n, r, now);
		if ((t = taskmap_find(&n->map, uuid)) == NULL)
			return;
		arraycap_heard(n, t, now);
		if (proposal && (m->again || voters_first(n, m->sender, t)))
			confirm_answer(n, m->sender, t);
		return;
	}
	if (!plausible_same_origin(n, m->sender, t, r, now) ||
	    !authorship_admit(n, m, r, t, now)) {
		task_free(r);
		return;
	}
	quorum_admit(n, m->sender, r, t, now);
	ckpt_admit(n, m, r, t);
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
	/* An end heard once it is confirmed: one line, not the proposal's
	 * and then the same again. */
	if (t->state == TASK_READY || (task_is_final(t->state) &&
	    t->confirmed))
		node_log_task(n, VLOG_INFO, t, NULL);
	cascade_derive(n, t, now);
	if ((t = taskmap_find(&n->map, uuid)) == NULL)
		return;
	arraycap_heard(n, t, now);
	if (proposal && (m->again || voters_first(n, m->sender, t)))
		confirm_answer(n, m->sender, t);
}

/*
 * The master acknowledges a node's own submissions, which it sends again
 * until it does (replicate_enqueue); not the others' records a sync
 * moves, which nobody waits for.
 */
void
replicate_recv_enqueue(struct node *n, const struct peer_msg *m,
    int64_t now)
{
	char			 uuid[UUID_STRLEN + 1];
	struct peer_msg		 ack;
	const struct task	*t;

	merge_record(n, m, now, uuid);
	if (node_is_master(n) && uuid[0] != '\0' &&
	    ((t = taskmap_find(&n->map, uuid)) == NULL ||	/* retired */
	    strcmp(t->scheduled_by, m->sender) == 0)) {
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

void
replicate_recv_get_task(struct node *n, const struct peer_msg *m)
{
	const struct task	*t;

	if ((t = taskmap_find(&n->map, m->uuid)) != NULL)
		replicate_send(n, m->sender, PEER_ENQUEUE, t);
}
