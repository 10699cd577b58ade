/*
 * origin.c -- the taker's signature over a task's origin (origin.h).
 * libsodium signs and verifies (Ed25519, deterministic: pure); the
 * statement (statement.h) holds the fields task_same_origin compares.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"
#include "origin.h"
#include "statement.h"

static const char *
key_name(const void *ctx, size_t i)
{
	return ((const struct origin *)ctx)->v[i].name;
}

void
origin_init(struct node *n)
{
	n->origin.idx.name = key_name;
	n->origin.idx.ctx = &n->origin;
}

void
origin_free(struct node *n)
{
	free(n->origin.v);
	nameidx_free(&n->origin.idx);
}

void
origin_learn(struct node *n, const char *name, const uint8_t pk[32])
{
	struct origin		*o = &n->origin;
	struct origin_key	*v;
	int			 at = nameidx_find(&o->idx, name);

	if (strlen(name) >= sizeof o->v[0].name)
		return;
	if (at >= 0) {
		memcpy(o->v[at].pk, pk, 32);	/* enrolled anew */
		return;
	}
	if (o->n == ORIGIN_KEYS_MAX ||
	    (v = realloc(o->v, (o->n + 1) * sizeof *v)) == NULL)
		return;
	o->v = v;
	snprintf(v[o->n].name, sizeof v[o->n].name, "%s", name);
	memcpy(v[o->n].pk, pk, 32);
	if (nameidx_add(&o->idx, ++o->n) == -1)
		o->n--;
}

static void
digest(const struct task *t, uint8_t h[STATEMENT_BYTES])
{
	statement		 st;
	const struct task_cmd	*c = t->cmd;
	int			 i;

	statement_init(&st, "volery-origin1");
	statement_str(&st, t->uuid);
	statement_str(&st, t->exec);
	statement_str(&st, t->scheduled_by);
	statement_str(&st, t->user);
	statement_num(&st, t->uid);
	statement_num(&st, t->submit_ms);
	statement_num(&st, t->begin_ms);
	statement_str(&st, t->array);
	statement_num(&st, t->array_index);
	statement_num(&st, t->array_max);
	statement_num(&st, t->req_cores);
	statement_num(&st, t->req_memory_mb);
	statement_str(&st, t->req_tags);
	statement_str(&st, t->path);
	statement_str(&st, t->params);
	statement_num(&st, t->ninputs);
	for (i = 0; i < t->ninputs; i++) {
		statement_str(&st, t->inputs[i].from);
		statement_num(&st, t->inputs[i].nth);
	}
	statement_num(&st, c != NULL);
	if (c != NULL) {
		statement_list(&st, c->argv, c->argc);
		statement_list(&st, c->env, c->nenv);
		statement_str(&st, c->cwd);
		statement_str(&st, c->out);
		statement_str(&st, c->err);
		statement_num(&st, c->time_limit_ms);
		statement_list(&st, c->outs, c->nouts);
		/* Appended only if any: the same bytes as before for
		 * tasks without. */
		if (c->nsecrets > 0)
			statement_list(&st, c->secrets, c->nsecrets);
		if (c->ckpt_file != NULL) {	/* likewise */
			statement_str(&st, "ckpt");
			statement_str(&st, c->ckpt_file);
			statement_num(&st, c->ckpt_signal);
		}
		if (c->nins > 0) {		/* likewise */
			statement_str(&st, "ins");
			statement_list(&st, c->ins, c->nins);
			statement_str(&st, c->in_dir);
		}
	}
	if (t->verify > 0) {		/* likewise (verify.c) */
		statement_num(&st, t->verify);
		statement_str(&st, t->replica_of);
		statement_num(&st, t->replica_index);
	} else if (t->replica_of[0] != '\0') {	/* a tail's (tail.c) */
		statement_str(&st, "tail");
		statement_str(&st, t->replica_of);
		statement_num(&st, t->replica_index);
	}
	if (t->deadline_ms > 0) {	/* likewise: a peer cannot move it */
		statement_str(&st, "dln");
		statement_num(&st, t->deadline_ms);
		if (t->deadline_late)	/* nor put it back first */
			statement_str(&st, "late");
	}
	if (t->est_ms > 0) {	/* likewise: nor move it up the queue */
		statement_str(&st, "est");
		statement_num(&st, t->est_ms);
	}
	statement_final(&st, h);
}

void
origin_sign(struct node *n, struct task *t)
{
	uint8_t	h[STATEMENT_BYTES];
	char	text[STATEMENT_SIG_TEXT];

	if (n->cfg.sign_sk == NULL)
		return;
	digest(t, h);
	statement_sign(h, n->cfg.sign_sk, text);
	n->origin.made++;
	if (task_set_string(&t->sig, text) == 0)
		t->origin_ok = 1;
}

const uint8_t *
origin_key(const struct node *n, const char *name)
{
	int	at = nameidx_find(&n->origin.idx, name);

	return at >= 0 ? n->origin.v[at].pk : NULL;
}

void
origin_counts(const struct node *n, uint64_t *made, uint64_t *checked)
{
	*made += n->origin.made;
	*checked += n->origin.checked;
}

/* 1 verified, 0 false (or unsigned), -1 its taker's key unknown. */
static int
verify(struct node *n, const struct task *t)
{
	uint8_t		 h[STATEMENT_BYTES];
	const uint8_t	*pk = origin_key(n, t->scheduled_by);

	if (pk == NULL)
		return -1;
	if (t->sig == NULL)
		return 0;	/* a taker we know signs all it takes */
	digest(t, h);
	n->origin.checked++;
	return statement_signed(t->sig, h, pk);
}

int
origin_admit(struct node *n, const char *sender, struct task *r)
{
	int	v;

	if (n->cfg.sign_sk == NULL)
		return 1;
	/* Its taker's own datagram (the shell authenticated the sender). */
	if (strcmp(sender, r->scheduled_by) == 0) {
		r->origin_ok = 1;
		return 1;
	}
	if ((v = verify(n, r)) == 0)
		return 0;
	r->origin_ok = v == 1;
	return 1;
}

int
origin_runnable(struct node *n, const struct task *t, char *why,
    size_t whylen)
{
	int	v;

	if (n->cfg.sign_sk == NULL || t->origin_ok == 1)
		return 1;
	/* The key may have come since: checked once it has, and the answer
	 * kept in t's local flag (a dispatch asks on every event). */
	if (t->origin_ok == 0 && (v = verify(n, t)) != -1)
		((struct task *)t)->origin_ok = v == 1 ? 1 : -1;
	if (t->origin_ok == 1)
		return 1;
	snprintf(why, whylen, "its origin is signed by no node known here "
	    "(%s)", t->scheduled_by);
	return 0;
}
