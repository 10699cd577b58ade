/*
 * dequeue.c -- the distributed dequeue (thesis Algorithm 3.2).  A node
 * with a free slot proposes to take one ready task (TRY_DEQUEUE with its
 * stamp), waits one window (as long as the peers' stamped datagrams take
 * to arrive: dequeue_window_ms), and takes it if no earlier proposal for
 * the same task was heard -- in its window or shortly before it, which
 * the thesis' version misses.  Which task a node proposes for follows the
 * rank rule of Figure 3.11, so nodes rarely race for the same one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nodestate.h"
#include "peer.h"
#include "rules.h"

void
dequeue_init(struct node *n)
{
	n->dequeue.retry_at = -1;
	n->dequeue.late_heard = -1;
}

/*
 * The window must outlast the lateness of any rival claim stamped before
 * ours.  A claim stamped s by its sender arrives at our clock's s + d +
 * o (d the delay, o how far our clock is ahead of the sender's), so the
 * lateness we measure on the peers' stamped datagrams is that bound,
 * clock offsets included.  We estimate it as TCP does a round trip
 * (RFC 6298): a smoothed mean and mean deviation, in microseconds so
 * that small steps do not vanish in the divisions.
 */
/* A stamp was heard lately: the estimate stands. */
static int
lateness_known(const struct dequeue *dq, int64_t now)
{
	return dq->late_heard >= 0 && now - dq->late_heard < LATENESS_FORGET_MS;
}

void
dequeue_heard_stamp(struct node *n, int64_t sent, int64_t now)
{
	struct dequeue	*dq = &n->dequeue;
	int64_t		 late = now > sent ? now - sent : 0;
	int64_t		 err;

	if (late > LATENESS_MAX_MS)
		late = LATENESS_MAX_MS;		/* a clock far behind ours */
	late *= 1000;
	if (!lateness_known(dq, now)) {
		dq->late_mean_us = late;
		dq->late_dev_us = late / 2;
	} else {
		err = late - dq->late_mean_us;
		dq->late_dev_us += ((err < 0 ? -err : err) - dq->late_dev_us) /
		    4;
		dq->late_mean_us += err / 8;
	}
	dq->late_heard = now;
}

/*
 * Twice the mean, as a node that knows the task is taken answers our
 * claim (dequeue_recv_try): a round trip; four deviations for the
 * stragglers; 2 ms for the clocks' millisecond steps, the stamp's and
 * the deadline's.  On a quiet LAN a few milliseconds, never more than
 * dequeue_window_ms, and that until the first stamp comes.
 */
int64_t
dequeue_window_ms(const struct node *n, int64_t now)
{
	const struct dequeue	*dq = &n->dequeue;
	int64_t			 w;

	if (!lateness_known(dq, now))
		return n->cfg.dequeue_window_ms;
	w = (2 * dq->late_mean_us + 4 * dq->late_dev_us + 500) / 1000 +
	    LATENESS_MARGIN_MS;
	return w < n->cfg.dequeue_window_ms ? w : n->cfg.dequeue_window_ms;
}

/* A task we may run (run_admissible): others are for other nodes. */
static int
ours(const struct node *n, const struct task *t)
{
	char	why[REASON_MAXLEN + 1];

	return run_admissible(n, t, why, sizeof why);
}

/*
 * Interactive rule (thesis 4.5): an interactive task scheduled here runs
 * here at once when nothing runs here, volunteer or not.
 */
static struct task *
interactive_own(struct node *n)
{
	size_t	k;

	for (k = 0; k < readyq_len(&n->ready); k++) {
		struct task *t = readyq_at(&n->ready, k);
		if (n->ready.order == ORDER_FCFS &&
		    t->prio != PRIO_INTERACTIVE && !t->aged && !t->urgent)
			break;		/* the low tasks' part of the queue */
		if (t->prio == PRIO_INTERACTIVE &&
		    strcmp(t->scheduled_by, n->cfg.name) == 0 && ours(n, t))
			return t;
	}
	return NULL;
}

/* Someone else is taking uuid, as far as we heard. */
static int
claimed(const struct node *n, const char *uuid, int64_t now)
{
	return claims_taken(&n->dequeue.claims, uuid, now,
	    n->cfg.dequeue_window_ms);
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
	struct peer_msg	 m;
	size_t		 k, len, place, pos = 0;
	int64_t		 memory = CLAIM_WINDOWS * n->cfg.dequeue_window_ms;
	int64_t		 wake;

	while (run_count(n) < n->cfg.slots && !dq->active) {
		if (!run_volunteering(n)) {
			/* Our own interactive task runs here, uncontested. */
			if (run_count(n) == 0 &&
			    (t = interactive_own(n)) != NULL)
				run_start(n, t, now);
			return;
		}
		if ((len = readyq_len(&n->ready)) == 0)
			return;
		if ((wake = confirm_awaited(n, now)) >= 0) {
			dq->retry_at = wake;	/* or the votes, sooner */
			return;
		}
		if (peertab_live(n) == 0) {
			for (k = 0; k < len; k++)
				if (ours(n, t = readyq_at(&n->ready, k)))
					break;
			if (k == len)
				return;
			run_start(n, t, now);
			continue;
		}
		/*
		 * From our place on, the first task nobody is claiming: our
		 * rank after a lost race, else our rank among idle nodes.  A
		 * task at position p before our place r that stays unclaimed
		 * is ours to try after r - p more windows: the next in line
		 * step in one at a time, never all at once.
		 */
		place = dq->rank > 0 ? (size_t)dq->rank :
		    (size_t)peertab_idle_rank(n, now);
		for (t = NULL, k = place; k < len; k++) {
			t = readyq_at(&n->ready, k);
			if (!claimed(n, t->uuid, now) && ours(n, t)) {
				pos = k;
				break;
			}
			t = NULL;
		}
		wake = -1;
		for (k = 0; t == NULL && k < len && k < place; k++) {
			struct task *w = readyq_at(&n->ready, k);
			int64_t due = w->ready_ms + memory +
			    (int64_t)(place - k) * n->cfg.dequeue_window_ms;
			if (claimed(n, w->uuid, now) || !ours(n, w))
				continue;
			if (now >= due)
				t = w, pos = k;
			else if (wake < 0 || due < wake)
				wake = due;
		}
		if (t == NULL) {
			/* Nothing for us now: look again when one is due. */
			dq->retry_at = wake >= 0 ? wake : now + memory;
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
		memcpy(dq->uuid, t->uuid, sizeof dq->uuid);
		dq->ts = now;
		dq->deadline = now + dequeue_window_ms(n, now);
		dq->lost = 0;
		peer_msg_init(&m, PEER_TRY_DEQUEUE);
		memcpy(m.uuid, t->uuid, sizeof m.uuid);
		m.timestamp = now;
		outbox_peer(&n->out, NULL, &m);
		outbox_log(&n->out, VLOG_DEBUG, "TRY_DEQUEUE UUID[%s] was "
		    "broadcast to all servers (position %zu of %zu, rank %zu "
		    "of %d live; window %" PRId64 " ms)", t->uuid, pos, len,
		    place, peertab_live(n), dq->deadline - now);
	}
}

/*
 * The dequeue window closed: we lose to every proposal for the same task
 * that precedes ours, whether it came in our window or shortly before it
 * (Algorithm 3.2 misses the latter); we run the task if none did and it
 * is still Ready.
 */
static void
decide(struct node *n, int64_t now)
{
	struct dequeue	*dq = &n->dequeue;
	struct task	*t = taskmap_find(&n->map, dq->uuid);

	dq->active = 0;
	dq->lost = claims_beating(&dq->claims, dq->uuid, dq->ts, n->cfg.name,
	    now, n->cfg.dequeue_window_ms);
	if (dq->lost == 0 && t != NULL && t->state == TASK_READY &&
	    run_count(n) < n->cfg.slots) {
		outbox_log(&n->out, VLOG_DEBUG, "I won the race to dequeue "
		    "task UUID[%s]", t->uuid);
		run_start(n, t, now);
	} else if (dq->lost > 0) {
		dq->rank = dq->lost;
		outbox_log(&n->out, VLOG_DEBUG, "lost the race for task "
		    "UUID[%s] to %d node%s; next try at rank %d", dq->uuid,
		    dq->lost, dq->lost == 1 ? "" : "s", dq->rank);
	}
}

void
dequeue_recv_try(struct node *n, const struct peer_msg *m, int64_t now)
{
	struct dequeue	*dq = &n->dequeue;
	struct task	*t;

	dequeue_heard_stamp(n, m->timestamp, now);
	claims_remember(&dq->claims, m->uuid, m->sender, m->timestamp, now,
	    n->cfg.dequeue_window_ms);
	/* A later claim for the task we are claiming: its node must lose
	 * to ours, so make sure it heard ours -- it may have missed the
	 * broadcast.  Only contention costs this datagram. */
	if (dq->active && strcmp(dq->uuid, m->uuid) == 0 &&
	    rules_dequeue_beats(dq->ts, n->cfg.name, m->timestamp,
	    m->sender)) {
		struct peer_msg mine;
		peer_msg_init(&mine, PEER_TRY_DEQUEUE);
		memcpy(mine.uuid, dq->uuid, sizeof mine.uuid);
		mine.timestamp = dq->ts;
		outbox_peer(&n->out, m->sender, &mine);
	}
	/* It is not Ready: those who know tell each proposer at once,
	 * within its window (it missed a STATE) -- its runner, the master
	 * and the node it was scheduled on, three chances against a lost
	 * datagram.  peerrate bounds what one proposer can draw. */
	if ((t = taskmap_find(&n->map, m->uuid)) != NULL &&
	    t->state != TASK_READY && t->state != TASK_SUBMITTED &&
	    (t->run == RUN_ACTIVE || node_is_master(n) ||
	    strcmp(t->scheduled_by, n->cfg.name) == 0))
		replicate_send(n, m->sender, PEER_STATE, t);
	outbox_log(&n->out, VLOG_DEBUG, "TRY_DEQUEUE UUID[%s] from %s "
	    "processed", m->uuid, m->sender);
}

void
dequeue_tick(struct node *n, int64_t now)
{
	struct dequeue	*dq = &n->dequeue;

	if (dq->retry_at >= 0 && now >= dq->retry_at)
		dq->retry_at = -1;
	if (dq->active && now >= dq->deadline)
		decide(n, now);
}

int64_t
dequeue_deadline(const struct node *n, int64_t now)
{
	const struct dequeue	*dq = &n->dequeue;
	int64_t			 d = -1;

	if (dq->active)
		d = dq->deadline;
	if (dq->retry_at >= 0 && dq->retry_at > now &&
	    (d < 0 || dq->retry_at < d))
		d = dq->retry_at;
	return d;
}
