/*
 * liar.c -- node identities in the simulator, and a certified node that
 * lies (-F).  Every node has an Ed25519 key of its own (from a seed of
 * its index) and knows every other's, as enrolled nodes do once they
 * heard each other; the liar, the last node, runs its share of the work
 * honestly and, at the fault times, forges with the real codec what the
 * authorship rules refuse: a result for another node's run under that
 * runner's name, a cancel in its own name of a task it neither took nor
 * runs, a result of a runner no one knows; and a run it claims of a
 * task another node runs, sent as confirmed with a certificate of votes
 * it made up.  Its forgeries say so in their outputs (EVIL) or reason
 * (cancelled-by-liar): an honest node that tells one final breaks an
 * invariant (check_notify, sim_check).  The claimed run (LIARRUN) is
 * a run like any other once honest nodes vote for it; told final
 * without a majority's votes, it breaks one (check_liar_run).  With
 * checkpoints (-i) it also relays another node's run with a checkpoint
 * of its own making (seq 1000 on, which no run makes): a node that
 * starts from it breaks an invariant (simck_restore).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium/crypto_sign.h>

#include "simnet.h"
#include "task.h"
#include "wire.h"

void
sim_identities(struct simnet *s)
{
	uint8_t	seed[crypto_sign_SEEDBYTES];
	int	i;

	s->identities = 1;
	s->liar = s->n > 1 ? s->n - 1 : -1;
	s->fewest_up = s->n;
	for (i = 0; i < s->n; i++) {
		memset(seed, 0, sizeof seed);
		memcpy(seed, &i, sizeof i);
		seed[31] = 0x1d;
		crypto_sign_seed_keypair(s->pk[i], s->sk[i], seed);
	}
}

void
sim_learn_keys(struct simnet *s, int i)
{
	char	name[NAME_MAXLEN + 1];
	int	j;

	for (j = 0; j < s->n; j++) {
		snprintf(name, sizeof name, "n%02d", j);
		node_peer_key(s->nodes[i], name, s->pk[j], sim_local(s, i));
	}
}

void
sim_split(struct simnet *s)
{
	int	i, side[2] = { 0, 0 };

	for (i = 0; i < s->n; i++) {
		if (s->cut_in[i] || s->cut_out[i])
			s->fewest_up = 1;
		if (s->alive[i])
			side[s->group[i] != 0]++;
	}
	for (i = 0; i < 2; i++)
		if (side[i] > 0 && side[i] < s->fewest_up)
			s->fewest_up = side[i];
}

int
sim_forged(const char *key)
{
	return strstr(key, "EVIL") != NULL ||
	    strstr(key, "cancelled-by-liar") != NULL;
}

/* A task the liar knows Running on another node, neither its own nor
 * taken by it; else uuid. */
static const char *
running_elsewhere(struct simnet *s, const char *uuid)
{
	static char	 pick[UUID_STRLEN + 1];
	struct task	**v;
	const char	*me = node_name(s->nodes[s->liar]);
	size_t		  k, n;

	if ((v = node_tasks_sorted(s->nodes[s->liar], &n)) == NULL)
		return uuid;
	for (k = 0; k < n; k++)
		if (v[k]->state == TASK_RUNNING &&
		    strcmp(v[k]->running_on, me) != 0 &&
		    strcmp(v[k]->scheduled_by, me) != 0) {
			snprintf(pick, sizeof pick, "%s", v[k]->uuid);
			uuid = pick;
			break;
		}
	free(v);
	return uuid;
}

void
sim_lie(struct simnet *s, const char *uuid)
{
	static char	 line[DATAGRAM_MAX], body[DATAGRAM_MAX + 8];
	static char	 evil[64], *outs[1] = { evil }, qc[512];
	static const char fake[] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
	static char	 ck[CKPT_TEXT_MAX + 1];
	const char	*me;
	struct task	*t, *r;
	char		 err[128];
	int		 len, kind;

	if (s->liar < 0 || !s->alive[s->liar])
		return;
	/* A checkpoint lie is about a run going on: one, if any. */
	if (s->ckpts.every_ms > 0 && s->lies % 5 == 4)
		uuid = running_elsewhere(s, uuid);
	if ((t = node_find(s->nodes[s->liar], uuid)) == NULL ||
	    (t->state != TASK_RUNNING && t->state != TASK_TERMINATED))
		return;
	me = node_name(s->nodes[s->liar]);
	/* Its own run, or a task its owner asked it for: what it may lie
	 * about (--verify's to catch, not this). */
	if (strcmp(t->running_on, me) == 0 || strcmp(t->scheduled_by, me) == 0)
		return;
	if ((len = wire_task_encode(t, line, sizeof line)) < 0 ||
	    (r = wire_task_decode(line, (size_t)len, err, sizeof err)) == NULL)
		return;
	snprintf(evil, sizeof evil, "%.8s-EVIL", uuid);
	r->confirmed = 1;
	r->round = 1;
	r->end_ms = sim_local(s, s->liar);
	r->ver += 1000;
	/* The fifth kind only where runs checkpoint: the traces without
	 * keep their lies. */
	kind = (int)(s->lies++ % (s->ckpts.every_ms > 0 ? 5 : 4));
	if (kind == 4 && r->state != TASK_RUNNING)
		kind = 0;
	switch (kind) {
	case 0:		/* the runner's result, under its name */
		r->state = TASK_TERMINATED;
		task_set_outputs(r, outs, 1);
		break;
	case 1:		/* a cancel in its own name */
		r->state = TASK_CANCELLED;
		snprintf(r->reason, sizeof r->reason, "cancelled-by-liar");
		snprintf(r->eby, sizeof r->eby, "%s", me);
		task_set_string(&r->esg, NULL);
		break;
	case 2:		/* a result of a runner no one knows */
		r->state = TASK_TERMINATED;
		task_set_outputs(r, outs, 1);
		snprintf(r->running_on, sizeof r->running_on, "zz-ghost");
		snprintf(r->eby, sizeof r->eby, "zz-ghost");
		break;
	case 4:		/* another's run, with a checkpoint of its own */
		r->confirmed = r->round = 0;
		r->end_ms = -1;
		r->eby[0] = '\0';
		task_set_string(&r->esg, NULL);
		snprintf(ck, sizeof ck, "%llu:64:%lld:%064d:checkpoint:%s",
		    1000 + (unsigned long long)s->lies,
		    (long long)sim_local(s, s->liar), 0, me);
		task_set_string(&r->ckpt, ck);
		break;
	default:	/* a run it claims, confirmed by votes it made up */
		snprintf(evil, sizeof evil, "%.8s-LIARRUN", uuid);
		r->state = TASK_TERMINATED;
		task_set_outputs(r, outs, 1);
		snprintf(r->running_on, sizeof r->running_on, "%s", me);
		task_set_string(&r->esg, NULL);
		node_sign_run(s->nodes[s->liar], r);
		snprintf(qc, sizeof qc, "n00/%d/%.86s+n01/%d/%.86s+%s/%d/%.86s",
		    s->n, fake, s->n, fake, me, s->n, fake);
		task_set_string(&r->qc, qc);
		break;
	}
	if ((len = wire_task_encode(r, line, sizeof line)) > 0) {
		snprintf(body, sizeof body, "STATE %s", line);
		sim_inject(s, s->liar, body);
	}
	task_free(r);
}
