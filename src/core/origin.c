/*
 * origin.c -- the taker's signature over a task's origin (origin.h).
 * libsodium signs and verifies (Ed25519, deterministic: pure); the
 * digest walks the fields task_same_origin compares, each length-
 * prefixed, so no two origins hash alike by shifting bytes between
 * fields.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium/crypto_generichash.h>
#include <sodium/crypto_sign.h>
#include <sodium/utils.h>

#include "be64.h"
#include "nodestate.h"
#include "origin.h"

#define SIG_TEXT	87	/* 64 bytes, base64url without padding, NUL */

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
put_str(crypto_generichash_state *st, const char *s)
{
	uint8_t	len[8];

	be64_put(len, s != NULL ? strlen(s) + 1 : 0);
	crypto_generichash_update(st, len, sizeof len);
	if (s != NULL)
		crypto_generichash_update(st, (const uint8_t *)s, strlen(s));
}

static void
put_num(crypto_generichash_state *st, int64_t v)
{
	uint8_t	b[8];

	be64_put(b, (uint64_t)v);
	crypto_generichash_update(st, b, sizeof b);
}

static void
put_list(crypto_generichash_state *st, char *const *v, int n)
{
	int	i;

	put_num(st, n);
	for (i = 0; i < n; i++)
		put_str(st, v[i]);
}

static void
digest(const struct task *t, uint8_t h[32])
{
	crypto_generichash_state	 st;
	const struct task_cmd		*c = t->cmd;
	int				 i;

	crypto_generichash_init(&st, NULL, 0, 32);
	put_str(&st, "volery-origin1");
	put_str(&st, t->uuid);
	put_str(&st, t->exec);
	put_str(&st, t->scheduled_by);
	put_str(&st, t->user);
	put_num(&st, t->uid);
	put_num(&st, t->submit_ms);
	put_num(&st, t->begin_ms);
	put_str(&st, t->array);
	put_num(&st, t->array_index);
	put_num(&st, t->array_max);
	put_num(&st, t->req_cores);
	put_num(&st, t->req_memory_mb);
	put_str(&st, t->req_tags);
	put_str(&st, t->path);
	put_str(&st, t->params);
	put_num(&st, t->ninputs);
	for (i = 0; i < t->ninputs; i++) {
		put_str(&st, t->inputs[i].from);
		put_num(&st, t->inputs[i].nth);
	}
	put_num(&st, c != NULL);
	if (c != NULL) {
		put_list(&st, c->argv, c->argc);
		put_list(&st, c->env, c->nenv);
		put_str(&st, c->cwd);
		put_str(&st, c->out);
		put_str(&st, c->err);
		put_num(&st, c->time_limit_ms);
		put_list(&st, c->outs, c->nouts);
	}
	crypto_generichash_final(&st, h, 32);
}

void
origin_sign(struct node *n, struct task *t)
{
	uint8_t	h[32], sig[64];
	char	text[SIG_TEXT];

	if (n->cfg.sign_sk == NULL)
		return;
	digest(t, h);
	crypto_sign_detached(sig, NULL, h, sizeof h, n->cfg.sign_sk);
	sodium_bin2base64(text, sizeof text, sig, sizeof sig,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	if (task_set_string(&t->sig, text) == 0)
		t->origin_ok = 1;
}

/* 1 verified, 0 false (or unsigned), -1 its taker's key unknown. */
static int
verify(const struct node *n, const struct task *t)
{
	uint8_t	h[32], sig[64];
	size_t	got;
	int	at = nameidx_find(&n->origin.idx, t->scheduled_by);

	if (at < 0)
		return -1;
	if (t->sig == NULL)
		return 0;	/* a taker we know signs all it takes */
	if (sodium_base642bin(sig, sizeof sig, t->sig, strlen(t->sig), NULL,
	    &got, NULL, sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
	    got != sizeof sig)
		return 0;
	digest(t, h);
	return crypto_sign_verify_detached(sig, h, sizeof h,
	    n->origin.v[at].pk) == 0;
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
