/*
 * liar.c -- node identities in the simulator, and a certified node that
 * lies (-F).  Every node has an Ed25519 key of its own (from a seed of
 * its index) and knows every other's, as enrolled nodes do once they
 * heard each other; the liar, the last node, runs its share of the work
 * honestly and, at the fault times, forges with the real codec what the
 * authorship rules refuse: a result for another node's run under that
 * runner's name, a cancel in its own name of a task it neither took nor
 * runs, a result of a runner no one knows.  Its forgeries say so in
 * their outputs (EVIL) or reason (cancelled-by-liar): an honest node
 * that tells one final breaks an invariant (check_notify, sim_check).
 */
#include <stdio.h>
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

int
sim_forged(const char *key)
{
	return strstr(key, "EVIL") != NULL ||
	    strstr(key, "cancelled-by-liar") != NULL;
}

void
sim_lie(struct simnet *s, const char *uuid)
{
	static char	 line[DATAGRAM_MAX], body[DATAGRAM_MAX + 8];
	static char	 evil[64], *outs[1] = { evil };
	const char	*me;
	struct task	*t, *r;
	char		 err[128];
	int		 len;

	if (s->liar < 0 || !s->alive[s->liar] ||
	    (t = node_find(s->nodes[s->liar], uuid)) == NULL ||
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
	switch (s->lies++ % 3) {
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
	default:	/* a result of a runner no one knows */
		r->state = TASK_TERMINATED;
		task_set_outputs(r, outs, 1);
		snprintf(r->running_on, sizeof r->running_on, "zz-ghost");
		snprintf(r->eby, sizeof r->eby, "zz-ghost");
		break;
	}
	if ((len = wire_task_encode(r, line, sizeof line)) > 0) {
		snprintf(body, sizeof body, "STATE %s", line);
		sim_inject(s, s->liar, body);
	}
	task_free(r);
}
