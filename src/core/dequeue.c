/*
 * dequeue.c -- the distributed dequeue (thesis Algorithm 3.2).  A node
 * with a free slot proposes to take one ready task (TRY_DEQUEUE with its
 * stamp), waits one window (as long as the peers' stamps take to arrive,
 * lateness.h), and takes it if no earlier proposal for it was heard -- in
 * its window or shortly before, which the thesis' version misses.  The
 * rank rule of Figure 3.11 spreads the nodes over the tasks.
 *
 * The window is most of what a short task costs a pool, so one race may
 * claim a batch of short ones: every k-th ready task (k the idle nodes),
 * as many as the node can start before the peers forget its claims.
 * Those won while its slots are full wait there, held, and start in turn.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arraycap.h"
#include "nodestate.h"
#include "peer.h"
#include "rules.h"

void
dequeue_init(struct node *n)
{
	n->dequeue.retry_at = n->dequeue.begin_at = -1;
	claims_init(&n->dequeue.claims, &n->cfg);
	lateness_init(&n->dequeue.late);
}

void
dequeue_heard_stamp(struct node *n, struct peer *p, int64_t sent, int64_t now,
    int claim)
{
	if (claim)
		lateness_heard_claim(&n->dequeue.late, &p->late_base, sent, now);
	else
		lateness_heard(&n->dequeue.late, &p->late_base, sent, now);
}

int64_t
dequeue_window_ms(const struct node *n, int64_t now)
{
	return lateness_window_ms(&n->dequeue.late, n->cfg.dequeue_window_ms,
	    n->cfg.node_timeout_ms / 2, now);
}

int64_t
dequeue_claim_window_ms(const struct node *n, int64_t now)
{
	return lateness_hold_ms(&n->dequeue.late, n->cfg.dequeue_window_ms,
	    n->cfg.node_timeout_ms / 2, now);
}

int
dequeue_ours(struct node *n, const struct task *t, int64_t now)
{
	char	why[REASON_MAXLEN + 1];
	int64_t	at = retry_not_before(t);

	/* One needing what this node has not is never ours: its time
	 * to begin wakes nobody here. */
	if (!capset_fits_here(n, t, NULL, 0))
		return 0;
	if (at > now) {		/* not before its --begin or retry: then */
		if (n->dequeue.begin_at < 0 || at < n->dequeue.begin_at)
			n->dequeue.begin_at = at;
		return 0;
	}
	return !retry_leaves(n, t) && run_admissible(n, t, why, sizeof why) &&
	    run_fits_now(n, t) && !arraycap_full(n, t, now, now);
}

int
dequeue_claims_beating_where(struct node *n, int64_t ts, int64_t now,
    int (*pred)(const char *, void *), void *arg)
{
	return claims_beating_where(&n->dequeue.claims, ts, n->cfg.name, now,
	    dequeue_claim_window_ms(n, now), pred, arg);
}

int
dequeue_taken(const struct node *n, const char *uuid, int64_t now)
{
	return claims_taken(&n->dequeue.claims, uuid, now,
	    dequeue_claim_window_ms(n, now));
}

void
dequeue_requeued(struct node *n, const char *uuid)
{
	claims_forget(&n->dequeue.claims, uuid);
}

/* Someone else is taking t, as far as we heard, or its scheduler
 * starts it at once (interactive.h). */
static int
claimed(struct node *n, const struct task *t, int64_t now)
{
	return dequeue_taken(n, t->uuid, now) || interactive_theirs(n, t, now);
}

/*
 * A held task (won in a batch while our slots were full) to start now:
 * the next still Ready, ours and beaten by no earlier claim heard since
 * (a late one), while the peers still keep off it -- they forget a
 * claim CLAIM_WINDOWS windows after it came.  Past that the rest are
 * raced for again.
 */
static struct task *
next_held(struct node *n, int64_t now)
{
	struct dequeue	*dq = &n->dequeue;
	struct task	*t;
	int		 left;

	while (dq->next_held < dq->nheld && now < dq->held_until) {
		t = taskmap_find(&n->map, dq->held[dq->next_held++]);
		if (t != NULL && t->state == TASK_READY &&
		    !claims_beating(&dq->claims, t->uuid, dq->ts, n->cfg.name,
		    now, dequeue_claim_window_ms(n, now)) &&
		    dequeue_ours(n, t, now))
			return t;
	}
	if ((left = dq->nheld - dq->next_held) > 0)
		outbox_log(&n->out, VLOG_DEBUG, "%d claimed task%s from "
		    "UUID[%s] not started in time; raced for again", left,
		    left == 1 ? "" : "s", dq->held[dq->next_held]);
	dq->nheld = dq->next_held = 0;
	return NULL;
}

static void
start(struct node *n, struct task *t, int64_t now)
{
	run_start(n, t, now);
	ahead_started(n, t, now);
}

/*
 * Add to the race after the task at pos more tasks short enough that we
 * start them all before the peers forget our claims: every k-th task
 * after it, k the idle nodes, so that each of them has its own.  Long
 * or unknown tasks race one at a time: a node must not hold work idle
 * nodes could run.
 */
static void
batch_more(struct node *n, size_t pos, size_t len, int64_t now)
{
	struct dequeue	*dq = &n->dequeue;
	struct readyq	*q = &n->ready;
	struct task	*t = readyq_at(q, pos);
	int64_t		 budget, cost;
	size_t		 i, k, stride = (size_t)peertab_idle_count(n, now) + 1;

	if ((cost = placement_batch_cost(n, t)) < 0)
		return;
	budget = claims_memory_ms(dequeue_claim_window_ms(n, now)) -
	    2 * dequeue_window_ms(n, now) - cost;
	/* Only the tasks we could ever run can be ours (readyq.h). */
	for (i = readyq_fit_from(q, pos + stride); i < readyq_fit_len(q) &&
	    dq->nbatch < DEQUEUE_BATCH; i++) {
		t = readyq_fit_at(q, i);
		k = readyq_fit_len(q) == len ? i : readyq_pos(q, t);
		if ((k - pos) % stride != 0)
			continue;
		/* An array's limit is raced for one task at a time. */
		if (claimed(n, t, now) || t->array_max > 0 ||
		    !dequeue_ours(n, t, now))
			continue;
		if ((cost = placement_batch_cost(n, t)) < 0 || cost > budget)
			break;
		budget -= cost;
		memcpy(dq->batch[dq->nbatch++], t->uuid, UUID_STRLEN + 1);
	}
}

/* When a task at position k, before our place, becomes ours to try if
 * it stays unclaimed: one more window for each node ranked before us. */
static int64_t
due_at(const struct task *w, size_t place, size_t k, int64_t window)
{
	return w->ready_ms + claims_memory_ms(window) + (int64_t)(place - k) *
	    window;
}

/* A claim on uuid stamped ts, to peer (NULL: to all). */
static void
tell_claim(struct node *n, const char *peer, const char *uuid, int64_t ts)
{
	struct peer_msg	m;

	peer_msg_init(&m, PEER_TRY_DEQUEUE);
	memcpy(m.uuid, uuid, sizeof m.uuid);
	m.timestamp = ts;
	outbox_peer(&n->out, peer, &m);
}

/*
 * Take ready tasks while slots are free: alone, at once; with peers, by
 * the distributed dequeue (Algorithm 3.2), one race at a time.  After a
 * race lost to k others, the next try is for position k of the queue
 * (thesis Figure 3.11), so the losers do not collide again.
 */
void
dequeue_dispatch(struct node *n, int64_t now)
{
	struct dequeue	*dq = &n->dequeue;
	struct task	*t;
	size_t		 k, len, place, pos = 0;
	int64_t		 win = dequeue_claim_window_ms(n, now), wake;

	fairshare_refresh(n);
	/* Slots busy: a race may start before one frees (ahead.h). */
	while ((run_count(n) < n->cfg.slots || (dq->next_held == dq->nheld &&
	    ahead_now(n, now, dequeue_window_ms(n, now), &dq->retry_at))) &&
	    !dq->active) {
		/* Our own interactive task runs here, uncontested. */
		if (run_count(n) == 0 &&
		    (t = interactive_own(n, now)) != NULL) {
			start(n, t, now);
			continue;
		}
		if (!run_volunteering(n))
			return;
		if ((len = readyq_len(&n->ready)) == 0)
			return;
		if ((wake = confirm_awaited(n, now)) >= 0) {
			dq->retry_at = wake;	/* or the votes, sooner */
			return;
		}
		if (dq->nheld > 0 && (t = next_held(n, now)) != NULL) {
			outbox_log(&n->out, VLOG_DEBUG, "task UUID[%s], won "
			    "in a batch, starts now", t->uuid);
			start(n, t, now);
			continue;
		}
		if (peertab_live(n) == 0) {
			if (run_count(n) == n->cfg.slots)
				return;		/* no race to start early */
			for (k = 0; (t = readyq_fit_at(&n->ready, k)) != NULL &&
			    !dequeue_ours(n, t, now); k++)
				;
			if (t == NULL)
				return;
			start(n, t, now);
			continue;
		}
		/*
		 * From our place on, the first task nobody is claiming: our
		 * rank after a lost race, else among idle nodes (the fit's
		 * pick for that rank, fit.h).  One at position p before our
		 * place r that stays unclaimed is ours to try after r - p
		 * more windows: the next in line step in one at a time.
		 */
		place = fit_place(n, dq->rank > 0 ? (size_t)dq->rank :
		    (size_t)peertab_idle_rank(n, now), now);
		for (k = readyq_fit_from(&n->ready, place); (t = readyq_fit_at(
		    &n->ready, k)) != NULL && (claimed(n, t, now) ||
		    !dequeue_ours(n, t, now)); k++)
			;
		if (t != NULL)
			pos = readyq_pos(&n->ready, t);
		/* The first task before our place that is due, else when the
		 * soonest will be.  Only tasks that can change the answer are
		 * asked for claims and admission (a hash, a look-up). */
		wake = -1;
		for (k = 0; t == NULL && k < len && k < place; k++) {
			struct task *w = readyq_at(&n->ready, k);
			if (now >= due_at(w, place, k, win) &&
			    !claimed(n, w, now) && dequeue_ours(n, w, now))
				t = w, pos = k;
		}
		/* Backwards: dues rise towards the head, so the soonest is
		 * met first and later ones are not asked. */
		for (k = len < place ? len : place; t == NULL && k-- > 0;) {
			struct task *w = readyq_at(&n->ready, k);
			int64_t due = due_at(w, place, k, win);
			if (now < due && (wake < 0 || due < wake) &&
			    !claimed(n, w, now) && dequeue_ours(n, w, now))
				wake = due;
		}
		if (t == NULL) {
			/* Nothing for us now: look again when one is due. */
			dq->retry_at = wake >= 0 ? wake : now +
			    claims_memory_ms(win);
			return;
		}
		if ((wake = placement_defer(n, t, now)) >= 0) {
			/* Faster, steadier nodes finish the queue sooner. */
			outbox_log(&n->out, VLOG_DEBUG, "task UUID[%s] left to "
			    "nodes that would end the queue sooner; next look "
			    "in %" PRId64 " ms", t->uuid, wake - now);
			dq->retry_at = wake;
			return;
		}
		dq->rank = 0;	/* kept until we try again */
		dq->active = 1;
		memcpy(dq->batch[0], t->uuid, sizeof dq->batch[0]);
		dq->nbatch = 1;
		if (t->array_max == 0)
			batch_more(n, pos, len, now);
		dq->ts = now;
		dq->deadline = now + dequeue_window_ms(n, now);
		dq->lost = 0;
		for (k = 0; k < (size_t)dq->nbatch; k++)
			tell_claim(n, NULL, dq->batch[k], now);
		outbox_log(&n->out, VLOG_DEBUG, "TRY_DEQUEUE UUID[%s]%s was "
		    "broadcast to all servers (position %zu of %zu, rank %zu "
		    "of %d live; window %" PRId64 " ms)", t->uuid,
		    dq->nbatch > 1 ? " and more in its batch" : "", pos, len,
		    place, peertab_live(n), dq->deadline - now);
	}
}

/*
 * The dequeue window closed: we run each task of the race that no
 * earlier proposal beat and is still Ready, as slots allow, and hold the
 * rest of them to start as our slots free.  The losses on the first set
 * our rank for the next race.
 */
static void
decide(struct node *n, int64_t now)
{
	struct dequeue	*dq = &n->dequeue;
	struct task	*t;
	int		 b, lost;

	dq->active = dq->lost = 0;
	dq->nheld = dq->next_held = 0;
	for (b = 0; b < dq->nbatch; b++) {
		lost = claims_beating(&dq->claims, dq->batch[b], dq->ts,
		    n->cfg.name, now, dequeue_claim_window_ms(n, now));
		if (b == 0)
			dq->lost = lost;
		t = taskmap_find(&n->map, dq->batch[b]);
		if (lost > 0 || t == NULL || t->state != TASK_READY ||
		    arraycap_full(n, t, dq->ts, now))
			continue;
		if (run_count(n) < n->cfg.slots) {
			outbox_log(&n->out, VLOG_DEBUG, "I won the race to "
			    "dequeue task UUID[%s], %" PRId64 " ms after my "
			    "claim", t->uuid, now - dq->ts);
			start(n, t, now);
		} else
			memcpy(dq->held[dq->nheld++], t->uuid,
			    sizeof dq->held[0]);
	}
	if (dq->nheld > 0) {
		dq->held_until = dq->ts + claims_memory_ms(
		    dequeue_claim_window_ms(n, now)) - LATENESS_MARGIN_MS;
		outbox_log(&n->out, VLOG_DEBUG, "won %d more task%s from "
		    "UUID[%s] on; they start as our slots free", dq->nheld,
		    dq->nheld == 1 ? "" : "s", dq->held[0]);
	}
	if (dq->lost > 0) {
		dq->rank = dq->lost;
		outbox_log(&n->out, VLOG_DEBUG, "lost the race for task "
		    "UUID[%s] to %d node%s; next try at rank %d", dq->batch[0],
		    dq->lost, dq->lost == 1 ? "" : "s", dq->rank);
	}
}

/* We propose to take uuid, in the open race or as held. */
static int
proposing(const struct dequeue *dq, const char *uuid)
{
	int	i;

	for (i = 0; dq->active && i < dq->nbatch; i++)
		if (strcmp(dq->batch[i], uuid) == 0)
			return 1;
	for (i = dq->next_held; i < dq->nheld; i++)
		if (strcmp(dq->held[i], uuid) == 0)
			return 1;
	return 0;
}

void
dequeue_recv_try(struct node *n, const struct peer_msg *m, int64_t now)
{
	struct dequeue	*dq = &n->dequeue;
	struct task	*t;
	int64_t		 first;

	if (claims_remember(&dq->claims, m->uuid, m->sender, m->timestamp, now,
	    dequeue_claim_window_ms(n, now)))
		plausible_void_claims(n, m->sender, m->uuid, now);
	t = taskmap_find(&n->map, m->uuid);
	/* A later claim for the task we are claiming: its node must lose
	 * to ours, so make sure it heard ours -- it may have missed the
	 * broadcast.  Only contention costs this datagram. */
	if (proposing(dq, m->uuid) &&
	    rules_dequeue_beats(dq->ts, n->cfg.name, m->timestamp, m->sender))
		tell_claim(n, m->sender, m->uuid, dq->ts);
	/* A later claim than another node's we heard: a few helpers pass
	 * the earlier stamp on -- the claimant may have missed that
	 * broadcast, and the earlier claimant's own answer may be lost or
	 * never sent (it missed this claim).  In the earlier stamp the
	 * claimant's race is lost, as it would have been. */
	else if (t != NULL && t->state == TASK_READY &&
	    claims_helper(m->uuid, m->sender, n->cfg.name,
	    peertab_live(n) + 1) &&
	    claims_earlier(&dq->claims, m->uuid, m->timestamp, m->sender,
	    now, dequeue_claim_window_ms(n, now), &first))
		tell_claim(n, m->sender, m->uuid, first);
	/* It is not Ready: those who know tell each proposer at once,
	 * within its window (it missed a STATE) -- its runner, the master,
	 * the node it was scheduled on and a few helpers, each a chance
	 * against a lost claim or answer (one of them is often the runner
	 * too).  peerrate bounds what one proposer can draw. */
	if (t != NULL && t->state != TASK_READY && t->state != TASK_SUBMITTED &&
	    (t->run == RUN_ACTIVE || node_is_master(n) ||
	    strcmp(t->scheduled_by, n->cfg.name) == 0 ||
	    claims_helper(m->uuid, m->sender, n->cfg.name,
	    peertab_live(n) + 1)))
		replicate_send(n, m->sender, PEER_STATE, t);
	outbox_log(&n->out, VLOG_DEBUG, "TRY_DEQUEUE UUID[%s] from %s "
	    "processed, stamped %" PRId64 " ms ago", m->uuid, m->sender,
	    now - m->timestamp);
}

void
dequeue_tick(struct node *n, int64_t now)
{
	struct dequeue	*dq = &n->dequeue;

	if (dq->retry_at >= 0 && now >= dq->retry_at)
		dq->retry_at = -1;
	if (dq->begin_at >= 0 && now >= dq->begin_at)
		dq->begin_at = -1;	/* the next dispatch looks again */
	if (dq->active && now >= dq->deadline)
		decide(n, now);
}

int64_t
dequeue_deadline(const struct node *n, int64_t now)
{
	const struct dequeue	*dq = &n->dequeue;
	int64_t			 d = dq->active ? dq->deadline : -1;

	if (dq->retry_at >= 0 && dq->retry_at > now &&
	    (d < 0 || dq->retry_at < d))
		d = dq->retry_at;
	if (dq->begin_at >= 0 && dq->begin_at > now &&
	    (d < 0 || dq->begin_at < d))
		d = dq->begin_at;
	return d;
}
