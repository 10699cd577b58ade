/*
 * ahead.h -- a race before the slot frees (ahead.c): a node whose slots
 * all run short tasks races for the next a window before the one it
 * started last should end, so that the window passes while it runs.
 */
#ifndef VOLERY_AHEAD_H
#define VOLERY_AHEAD_H

#include <stdint.h>

#include "bounds.h"

struct node;
struct task;

struct ahead {
	char		 uuid[UUID_STRLEN + 1];	/* our last short run; "" */
	int64_t		 end_at;		/* when it should end */
};

/* The dequeue started t here now. */
void	ahead_started(struct node *, const struct task *t, int64_t now);
/* With every slot busy: may a race start now, its window `window` ms?
 * If not yet, *wake is lowered to when it may. */
int	ahead_now(struct node *, int64_t now, int64_t window, int64_t *wake);

#endif
