/*
 * origin.h -- who took a task, and that nothing else claims to be that.
 * The node that accepts a request signs the task's origin -- what only
 * it sets: program, owner, submit time, inputs, needs, array -- with its
 * own key (sig= in the record), so that a record relayed by any other
 * node (the master's transfer, anti-entropy, a helper) proves where the
 * task came from.  A record straight from its taker needs no check: the
 * shell authenticated its sender (identity.h).  A task whose origin is
 * signed by no node this node knows may be held, but never runs here;
 * one whose signature does not verify is refused.
 *
 * Off (and the sim's, the unit tests' default) when the node has no key:
 * node_config.sign_sk NULL.
 */
#ifndef VOLERY_ORIGIN_H
#define VOLERY_ORIGIN_H

#include <stddef.h>
#include <stdint.h>

#include "nameidx.h"

struct node;
struct task;

#define ORIGIN_KEYS_MAX	4096	/* nodes' keys remembered */

struct origin {
	struct origin_key {
		char	name[65];
		uint8_t	pk[32];
	}		*v;
	size_t		 n;
	struct nameidx	 idx;
	uint64_t	 made, checked;	/* signatures, for node_status */
};

void	origin_init(struct node *);
void	origin_free(struct node *);
/* name's key (heard certified, identity.c). */
void	origin_learn(struct node *, const char *name, const uint8_t pk[32]);
/* name's key, or NULL if not known here. */
const uint8_t *origin_key(const struct node *, const char *name);
/* Add the signatures made and checked so far to *made, *checked. */
void	origin_counts(const struct node *, uint64_t *made,
	    uint64_t *checked);
/* Sign t's origin as its taker (we just accepted it). */
void	origin_sign(struct node *, struct task *);
/*
 * r, a record of a task new to us, from sender: 1 to take it (from its
 * taker, or signed by it; t->origin_ok then), 1 with origin_ok 0 if its
 * taker's key is not known here yet, 0 if its signature is false or
 * missing.
 */
int	origin_admit(struct node *, const char *sender, struct task *r);
/* May t run here, as far as its origin goes?  Checked once its taker's
 * key is known; why if not. */
int	origin_runnable(struct node *, const struct task *, char *why,
	    size_t whylen);

#endif
