/*
 * interactive.h -- the interactive rule (thesis 4.5, interactive.c): an
 * interactive task scheduled on a node runs there at once if nothing
 * runs there, idle or not.
 */
#ifndef VOLERY_INTERACTIVE_H
#define VOLERY_INTERACTIVE_H

#include <stdint.h>

struct node;
struct task;

/* Our own interactive task to start now, uncontested; NULL if none. */
struct task *interactive_own(struct node *, int64_t now);
/* Is t another node's interactive task that its node starts at once,
 * so that we keep off it? */
int	interactive_theirs(struct node *, const struct task *t, int64_t now);

#endif
