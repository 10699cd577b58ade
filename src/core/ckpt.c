/*
 * ckpt.c -- checkpoints kept by the pool (ckpt.h).  The newest
 * checkpoint of a task is the record's ckpt= text (taskckpt.c): its
 * seq, size, hash, file name and holders, its maker (the runner that
 * made it) first.  Everything here is the runner's word about its own
 * run, checked against what we hold before anything is fetched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "peer.h"

/* Our run of t: Running here, our process active. */
static struct task *
our_run(struct node *n, const char *uuid)
{
	struct task	*t = taskmap_find(&n->map, uuid);

	if (t == NULL || t->state != TASK_RUNNING || (t->run != RUN_ACTIVE &&
	    !t->vacating) || strcmp(t->running_on, n->cfg.name) != 0)
		return NULL;
	return t;
}

static int
set_ckpt(struct node *n, struct task *t, const struct task_ckpt *c)
{
	char	text[CKPT_TEXT_MAX + 1];

	if (task_ckpt_format(c, text, sizeof text) == -1 ||
	    task_set_string(&t->ckpt, text) == -1) {
		outbox_log(&n->out, VLOG_ERROR, "Task UUID{%s}: checkpoint "
		    "%lld not kept in its record", t->uuid, (long long)c->seq);
		return -1;
	}
	replicate_publish(n, t);
	return 0;
}

/*
 * Ask the live nodes expected to volunteer longest (their heartbeats'
 * life_s), that do not hold it yet, to keep a copy: as many as the
 * copies still missing.
 */
static void
ask(struct node *n, struct task *t, const struct task_ckpt *c,
    const char *text, int64_t now)
{
	const struct peer	*best[CKPT_HOLDERS_MAX], *p;
	struct peer_msg		 m;
	int			 want, nbest = 0, i, k;
	size_t			 count = peertab_count(n);

	want = n->cfg.checkpoint_copies - (c->nholders - 1);
	if (want > CKPT_HOLDERS_MAX - c->nholders)
		want = CKPT_HOLDERS_MAX - c->nholders;
	t->ckpt_asked_ms = now;
	if (want <= 0)
		return;
	for (i = 0; i < (int)count; i++) {
		if ((p = peertab_at(n, i)) == NULL || !p->alive ||
		    p->name[0] == '\0' || task_ckpt_held_by(c, p->name))
			continue;
		/* Kept sorted, longest life first (ties: by name). */
		for (k = nbest; k > 0 && (best[k - 1]->life_s < p->life_s ||
		    (best[k - 1]->life_s == p->life_s &&
		    strcmp(best[k - 1]->name, p->name) > 0)); k--)
			if (k < want)
				best[k] = best[k - 1];
		if (k < want) {
			best[k] = p;
			if (nbest < want)
				nbest++;
		}
	}
	peer_msg_init(&m, PEER_CKPT_TAKE);
	memcpy(m.uuid, t->uuid, sizeof m.uuid);
	m.record = text;
	m.record_len = strlen(text);
	for (i = 0; i < nbest; i++)
		outbox_peer(&n->out, best[i]->name, &m);
}

int64_t
node_checkpoint_made(struct node *n, const char *uuid, int64_t bytes,
    const char *hash, const char *file, int64_t now)
{
	struct task		*t = our_run(n, uuid);
	struct task_ckpt	 c;
	char			 text[CKPT_TEXT_MAX + 1];

	if (t == NULL)
		return 0;	/* ended, or handed on, meanwhile */
	memset(&c, 0, sizeof c);
	if ((t->ckpt != NULL && !task_ckpt_parse(t->ckpt, &c)) ||
	    (t->ckpt_next != NULL && !task_ckpt_parse(t->ckpt_next, &c)) ||
	    c.seq >= CKPT_SEQ_MAX)
		return 0;
	c.seq++;
	c.bytes = bytes;
	c.made_ms = now;
	snprintf(c.hash, sizeof c.hash, "%s", hash);
	snprintf(c.file, sizeof c.file, "%s", file);
	c.nholders = 1;
	snprintf(c.holders[0], sizeof c.holders[0], "%s", n->cfg.name);
	/* Into the record at once if nothing older is there to lose, or no
	 * node is to keep a copy; else once one does (ckpt_recv_held). */
	if (t->ckpt == NULL || n->cfg.checkpoint_copies == 0 ||
	    peertab_live(n) == 0) {
		if (set_ckpt(n, t, &c) == -1)
			return 0;
		free(t->ckpt_next);
		t->ckpt_next = NULL;
	} else if (task_ckpt_format(&c, text, sizeof text) == -1 ||
	    task_set_string(&t->ckpt_next, text) == -1)
		return 0;
	t->ckpt_kept = c.seq;
	n->ckpts.made++;
	outbox_log(&n->out, VLOG_INFO, "Task UUID{%s} name{%s} owner{%s} "
	    "checkpoint %lld (%lld bytes, %s) kept here", t->uuid, t->exec,
	    t->user, (long long)c.seq, (long long)bytes, file);
	ask(n, t, &c, t->ckpt_next != NULL ? t->ckpt_next : t->ckpt, now);
	node_settle(n, now);
	return c.seq;
}

void
ckpt_adopt(struct task *r, struct task *t)
{
	r->ckpt_kept = t->ckpt_kept;
	r->ckpt_want = t->ckpt_want;
	r->ckpt_asked_ms = t->ckpt_asked_ms;
	r->ckpt_next = t->ckpt_next;	/* moves: t is freed, or swapped */
	t->ckpt_next = NULL;
}

void
ckpt_run_over(struct node *n, struct task *t)
{
	struct task_ckpt	c;

	/* An ended task's record is final: its checkpoints go. */
	if (t->ckpt_next != NULL && !task_is_final(t->state) &&
	    task_ckpt_parse(t->ckpt_next, &c))
		(void)set_ckpt(n, t, &c);
	free(t->ckpt_next);
	t->ckpt_next = NULL;
}

void
ckpt_housekeeping(struct node *n, struct task *t, int64_t now)
{
	struct task_ckpt	c;
	const char		*text = t->ckpt_next != NULL ? t->ckpt_next :
				    t->ckpt;

	/* Again once a failure timeout has passed without the copies. */
	if (text == NULL || (t->run != RUN_ACTIVE && !t->vacating) ||
	    now - t->ckpt_asked_ms < n->cfg.failure_timeout_ms ||
	    !task_ckpt_parse(text, &c) ||
	    strcmp(c.holders[0], n->cfg.name) != 0 || c.seq != t->ckpt_kept)
		return;
	ask(n, t, &c, text, now);
}

/* A CKPT_TAKE: its runner asks us to keep a copy. */
void
ckpt_recv_take(struct node *n, const struct peer_msg *m, int64_t now)
{
	struct task		*t = taskmap_find(&n->map, m->uuid);
	struct task_ckpt	 c;
	struct peer_msg		 a;
	char			 what[160];
	size_t			 before;

	/* Not its runner, or a run we have not heard of yet: its next
	 * ask finds us knowing. */
	if (t == NULL || t->state != TASK_RUNNING ||
	    strcmp(t->running_on, m->sender) != 0 ||
	    !task_ckpt_parse(m->record, &c))
		return;
	if (strcmp(c.holders[0], m->sender) != 0 ||
	    c.bytes > n->cfg.max_checkpoint_bytes) {
		n->ckpts.refused++;
		snprintf(what, sizeof what, "a checkpoint of task %s it did "
		    "not make or over %lld bytes (%lld)", m->uuid,
		    (long long)n->cfg.max_checkpoint_bytes,
		    (long long)c.bytes);
		(void)plausible_refuse(n, m->sender, what, now);
		return;
	}
	if (c.seq == t->ckpt_kept) {	/* kept: our answer was lost */
		peer_msg_init(&a, PEER_CKPT_HELD);
		memcpy(a.uuid, t->uuid, sizeof a.uuid);
		a.ver = (uint64_t)c.seq;
		outbox_peer(&n->out, m->sender, &a);
		return;
	}
	if (c.seq < t->ckpt_kept || c.seq == t->ckpt_want)
		return;		/* older, or on its way */
	before = n->out.n;
	outbox_text(&n->out, ACT_CKPT_FETCH, t->uuid, m->record);
	if (n->out.n == before)
		return;		/* out of memory: the next ask tries again */
	snprintf(n->out.v[before].peer, sizeof n->out.v[before].peer, "%s",
	    m->sender);
	t->ckpt_want = c.seq;
}

void
node_checkpoint_kept(struct node *n, const char *uuid, int64_t seq,
    const char *from, int ok, int64_t now)
{
	struct task	*t = taskmap_find(&n->map, uuid);
	struct peer_msg	 a;

	if (t == NULL || t->ckpt_want != seq)
		return;
	t->ckpt_want = 0;
	if (!ok)
		return;		/* asked again, it is fetched again */
	t->ckpt_kept = seq;
	n->ckpts.kept++;
	peer_msg_init(&a, PEER_CKPT_HELD);
	memcpy(a.uuid, t->uuid, sizeof a.uuid);
	a.ver = (uint64_t)seq;
	outbox_peer(&n->out, from, &a);
	node_settle(n, now);
}

/* A CKPT_HELD: a node keeps a copy of our run's checkpoint. */
void
ckpt_recv_held(struct node *n, const struct peer_msg *m, int64_t now)
{
	struct task		*t = our_run(n, m->uuid);
	struct task_ckpt	 c;
	const char		*text;

	if (t == NULL)
		return;
	/* The first copy of our newest: it enters the record. */
	text = t->ckpt_next != NULL && task_ckpt_parse(t->ckpt_next, &c) &&
	    (uint64_t)c.seq == m->ver ? t->ckpt_next : t->ckpt;
	if (text == NULL || !task_ckpt_parse(text, &c) ||
	    (uint64_t)c.seq != m->ver || task_ckpt_held_by(&c, m->sender) ||
	    c.nholders == CKPT_HOLDERS_MAX)
		return;
	snprintf(c.holders[c.nholders++], sizeof c.holders[0], "%s",
	    m->sender);
	if (text == t->ckpt_next) {
		free(t->ckpt_next);
		t->ckpt_next = NULL;
	}
	if (set_ckpt(n, t, &c) == 0)
		outbox_log(&n->out, VLOG_INFO, "Task UUID{%s} name{%s} "
		    "checkpoint %lld kept by %s too", t->uuid, t->exec,
		    (long long)c.seq, m->sender);
	(void)now;
}

/* Do a and b say the same checkpoint (holders aside)? */
static int
same_ckpt(const char *a, const char *b)
{
	struct task_ckpt	x, y;

	if (a == NULL || b == NULL)
		return a == b;
	return task_ckpt_parse(a, &x) && task_ckpt_parse(b, &y) &&
	    x.seq == y.seq && x.bytes == y.bytes && strcmp(x.hash,
	    y.hash) == 0 && strcmp(x.file, y.file) == 0;
}

void
ckpt_admit(struct node *n, const struct peer_msg *m, struct task *r,
    const struct task *t)
{
	struct task_ckpt	c;

	if (task_is_final(r->state) || same_ckpt(r->ckpt, t->ckpt))
		return;
	/* From its maker itself (the datagram's sender is checked), the
	 * task's runner as we hold it or as its own record says. */
	if (r->ckpt != NULL && task_ckpt_parse(r->ckpt, &c) &&
	    strcmp(c.holders[0], m->sender) == 0 &&
	    (strcmp(t->running_on, m->sender) == 0 ||
	    (r->state == TASK_RUNNING && strcmp(r->running_on,
	    m->sender) == 0)))
		return;
	if (task_set_string(&r->ckpt, t->ckpt) == -1)
		return;
	n->ckpts.refused++;
	outbox_log(&n->out, VLOG_DEBUG, "Task UUID{%s}: a checkpoint relayed "
	    "by %s that its maker did not send; ours kept", r->uuid,
	    m->sender);
}
