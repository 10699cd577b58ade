/*
 * simckpt.c -- checkpoints in the simulator (simckpt.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evqueue.h"
#include "node.h"
#include "simckpt.h"
#include "simnet.h"
#include "task.h"

/* What the pool has of one task's checkpoints. */
struct sim_cktask {
	char		 uuid[UUID_STRLEN + 1];
	int64_t		*work;		/* [seq]: the work it holds */
	int64_t		 nseq;
	/* Each node's two newest seqs, 0 none: a store keeps the newest
	 * and the one before (ckstore.c), as the record may still name
	 * the older (ckpt.h). */
	int64_t		 held[SIM_MAXNODES][2];
	int64_t		 work_ms;	/* the task's work */
	int		 needed;	/* a run did it whole */
};

static int
holds(const struct sim_cktask *k, int i, int64_t seq)
{
	return k->held[i][0] == seq || k->held[i][1] == seq;
}

/* Node i keeps seq: the newest, or the one before. */
static void
keep(struct sim_cktask *k, int i, int64_t seq)
{
	int64_t	*h = k->held[i];

	if (holds(k, i, seq))
		return;
	if (seq > h[0]) {
		h[1] = h[0];
		h[0] = seq;
	} else if (seq > h[1])
		h[1] = seq;
}

static struct sim_cktask *
find(struct simnet *s, const char *uuid, int add)
{
	struct sim_ckpts	*c = &s->ckpts;
	int			 k;

	for (k = 0; k < c->n; k++)
		if (strcmp(c->v[k].uuid, uuid) == 0)
			return &c->v[k];
	if (!add)
		return NULL;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->v = sim_realloc(c->v, c->cap * sizeof *c->v);
	}
	memset(&c->v[c->n], 0, sizeof c->v[c->n]);
	snprintf(c->v[c->n].uuid, sizeof c->v[c->n].uuid, "%s", uuid);
	return &c->v[c->n++];
}

int64_t
simck_work_of(struct simnet *s, const char *uuid, int64_t work)
{
	struct sim_cktask	*k = find(s, uuid, 1);

	if (k->work_ms == 0)
		k->work_ms = work;
	return k->work_ms;
}

int
simck_needed(struct simnet *s, const char *uuid)
{
	struct sim_cktask	*k = find(s, uuid, 1);

	if (k->needed)
		return 0;
	k->needed = 1;
	return 1;
}

int64_t
simck_copy_ms(const struct simnet *s)
{
	return 1 + s->ckpts.bytes / 12500;	/* 12.5 MB/s */
}

void
simck_made(struct simnet *s, int i, const char *uuid, int64_t seq,
    int64_t work)
{
	struct sim_cktask	*k = find(s, uuid, 1);

	if (seq >= k->nseq) {
		k->work = sim_realloc(k->work, (seq + 1) * sizeof *k->work);
		memset(k->work + k->nseq, 0, (seq + 1 - k->nseq) *
		    sizeof *k->work);
		k->nseq = seq + 1;
	}
	/* A seq made twice (two runs of a split pool): the later is its
	 * maker's in the record; the model keeps the less work. */
	if (k->work[seq] == 0 || work < k->work[seq])
		k->work[seq] = work;
	keep(k, i, seq);
	s->ckpts.made++;
}

int64_t
simck_restore(struct simnet *s, int i, const struct task *t, int64_t *delay)
{
	struct sim_cktask	*k;
	struct task_ckpt	 c;
	int			 h, j;

	*delay = 0;
	if (t->ckpt == NULL || !task_ckpt_parse(t->ckpt, &c))
		return 0;
	if ((k = find(s, t->uuid, 0)) == NULL || c.seq >= k->nseq ||
	    k->work[c.seq] == 0) {
		sim_violation(s, "task %s: node n%02d restores checkpoint %lld, "
		    "which no run made", t->uuid, i, (long long)c.seq);
		return 0;
	}
	if (!holds(k, i, c.seq)) {
		/* The holders in turn, as ckpts.c asks them. */
		for (h = 0; h < c.nholders; h++)
			if ((j = sim_index(s, c.holders[h])) >= 0 && j != i &&
			    s->alive[j] && holds(k, j, c.seq))
				break;
		if (h == c.nholders) {
			s->ckpts.from_zero++;
			return 0;
		}
		*delay = simck_copy_ms(s);
		keep(k, i, c.seq);
		s->ckpts.fetched++;
	}
	s->ckpts.restored++;
	return k->work[c.seq];
}

void
simck_fetch(struct simnet *s, int i, const char *uuid, const char *peer,
    const char *text)
{
	struct sim_cktask	*k = find(s, uuid, 0);
	struct task_ckpt	 c;
	struct sim_copy		*cp;
	struct sim_ev		 e;
	int			 j = sim_index(s, peer);

	if (!task_ckpt_parse(text, &c))
		return;
	if (k == NULL || j < 0 || !s->alive[j] || !holds(k, j, c.seq)) {
		node_checkpoint_kept(s->nodes[i], uuid, c.seq, peer, 0,
		    sim_local(s, i));
		return;
	}
	cp = sim_calloc(1, sizeof *cp);
	snprintf(cp->uuid, sizeof cp->uuid, "%s", uuid);
	cp->seq = c.seq;
	cp->from = j;
	memset(&e, 0, sizeof e);
	e.kind = EV_CKPT_COPY;
	e.at = s->now + simck_copy_ms(s);
	e.to = i;
	e.copy = cp;
	evq_push(s->dgrams, &e);
}

void
simck_copied(struct simnet *s, int i, struct sim_copy *cp)
{
	struct sim_cktask	*k = find(s, cp->uuid, 0);
	int			 ok;

	/* Its holder went away before the last byte: no copy. */
	ok = k != NULL && s->alive[cp->from] && holds(k, cp->from, cp->seq);
	if (s->alive[i]) {
		if (ok) {
			keep(k, i, cp->seq);
			s->ckpts.copies++;
		}
		node_checkpoint_kept(s->nodes[i], cp->uuid, cp->seq,
		    node_name(s->nodes[cp->from]), ok, sim_local(s, i));
		sim_flush(s, i);
	}
	free(cp);
}

void
simck_free(struct sim_ckpts *c)
{
	int	k;

	for (k = 0; k < c->n; k++)
		free(c->v[k].work);
	free(c->v);
}
