/*
 * retry.h -- retries that learn (retry.c, issue 37): a failed attempt
 * waits longer each time and goes to another node where one can run
 * it; a node whose runs fail while the same tasks succeed elsewhere --
 * a "black hole" (a full disk, a missing library) -- stops volunteering
 * for a while instead of eating the pool's retries.
 */
#ifndef VOLERY_RETRY_H
#define VOLERY_RETRY_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

struct node;
struct task;

#define RETRY_OWN_MAX 32	/* our own failed runs remembered */

struct retry_failure {
	char		 uuid[UUID_STRLEN + 1];
	int64_t		 at;		/* when our run of it failed */
	int		 proven;	/* it has since succeeded elsewhere */
};

struct retry {
	struct retry_failure	 own[RETRY_OWN_MAX];	/* a ring */
	int			 next;
	int64_t			 until;		/* quarantined until; 0 */
	char			 why[REASON_MAXLEN + 1];
};

/* Our run of t failed with status (task.h's exit_status): note it in t
 * (its failed attempts, the time it may be retried) and here. */
void	retry_failed(struct node *, struct task *t, int status, int64_t now);
/* Not before then (epoch ms): its --begin, or its retry's wait; 0. */
int64_t	retry_not_before(const struct task *);
/* Should we leave t to others now: we failed it, and a live node that
 * did not and can run it takes tasks. */
int	retry_leaves(struct node *, const struct task *t);
/* t's end was confirmed: if it succeeded elsewhere after our run of it
 * failed, one more sign of a black hole here. */
void	retry_settled(struct node *, const struct task *t, int64_t now);

/* Quarantined: we take no tasks, why says why (until when). */
int	retry_quarantined(const struct node *);
const char *retry_quarantine_why(const struct node *);
/* When the quarantine ends (-1: none), and the tick that ends it. */
int64_t	retry_deadline(const struct node *);
void	retry_tick(struct node *, int64_t now);

#endif
