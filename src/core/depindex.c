/*
 * depindex.c -- who depends on whom: for each upstream uuid, the uuids
 * of the tasks bound to its outputs.  Binding a result, ending a tree
 * and redoing a task touch those dependents only, not the whole map.
 * Open addressing with linear probing, like the task map.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "depindex.h"
#include "task.h"

/* A slot whose upstream left: keeps probe chains intact. */
#define TOMB_MARK '\001'

static size_t
probe(const struct depindex *x, const char *up, int *found)
{
	size_t	mask = x->cap - 1;
	size_t	i = task_hash(up) & mask;
	size_t	first_tomb = SIZE_MAX;

	for (;;) {
		const struct dep_entry *e = &x->slots[i];
		if (e->up[0] == '\0') {
			*found = 0;
			return first_tomb != SIZE_MAX ? first_tomb : i;
		}
		if (e->up[0] == TOMB_MARK) {
			if (first_tomb == SIZE_MAX)
				first_tomb = i;
		} else if (strcmp(e->up, up) == 0) {
			*found = 1;
			return i;
		}
		i = (i + 1) & mask;
	}
}

/* Rehash into room for twice the live entries, dropping tombstones. */
static int
rehash(struct depindex *x)
{
	struct depindex	bigger;
	size_t		i;

	bigger.cap = 64;
	while (x->n * 4 >= bigger.cap)
		bigger.cap *= 2;
	if ((bigger.slots = calloc(bigger.cap, sizeof *bigger.slots)) == NULL)
		return -1;
	bigger.n = bigger.used = 0;
	for (i = 0; i < x->cap; i++) {
		struct dep_entry *e = &x->slots[i];
		int found;
		if (e->up[0] == '\0' || e->up[0] == TOMB_MARK)
			continue;
		bigger.slots[probe(&bigger, e->up, &found)] = *e;
		bigger.n++;
		bigger.used++;
	}
	free(x->slots);
	*x = bigger;
	return 0;
}

int
depindex_add(struct depindex *x, const char *up, const char *down)
{
	struct dep_entry	*e;
	int			 found, k;
	size_t			 i;

	if ((x->used + 1) * 2 > x->cap && rehash(x) == -1)
		return -1;
	i = probe(x, up, &found);
	e = &x->slots[i];
	if (!found) {
		if (e->up[0] == '\0')
			x->used++;
		memset(e, 0, sizeof *e);
		snprintf(e->up, sizeof e->up, "%s", up);
		x->n++;
	}
	for (k = 0; k < e->n; k++)
		if (strcmp(e->down[k], down) == 0)
			return 0;
	if (e->n == e->cap) {
		int cap = e->cap == 0 ? 4 : e->cap * 2;
		char (*v)[UUID_STRLEN + 1] = realloc(e->down,
		    cap * sizeof *v);
		if (v == NULL)
			return -1;
		e->down = v;
		e->cap = cap;
	}
	snprintf(e->down[e->n++], sizeof e->down[0], "%s", down);
	return 0;
}

void
depindex_del(struct depindex *x, const char *up, const char *down)
{
	struct dep_entry	*e;
	int			 found, k;
	size_t			 i;

	if (x->cap == 0)
		return;
	i = probe(x, up, &found);
	if (!found)
		return;
	e = &x->slots[i];
	for (k = 0; k < e->n; k++)
		if (strcmp(e->down[k], down) == 0) {
			/* Keep the order: it is the order of arrival. */
			memmove(e->down[k], e->down[k + 1],
			    (e->n - k - 1) * sizeof e->down[0]);
			e->n--;
			break;
		}
	if (e->n == 0) {
		free(e->down);
		memset(e, 0, sizeof *e);
		e->up[0] = TOMB_MARK;
		x->n--;
	}
}

const char (*depindex_get(const struct depindex *x, const char *up,
    int *count))[UUID_STRLEN + 1]
{
	int	found;
	size_t	i;

	*count = 0;
	if (x->cap == 0)
		return NULL;
	i = probe(x, up, &found);
	if (!found)
		return NULL;
	*count = x->slots[i].n;
	return (const char (*)[UUID_STRLEN + 1])x->slots[i].down;
}

void
depindex_free(struct depindex *x)
{
	size_t	i;

	for (i = 0; i < x->cap; i++)
		free(x->slots[i].down);
	free(x->slots);
	memset(x, 0, sizeof *x);
}
