/*
 * nameidx.c -- positions of an array by name (nameidx.h): linear
 * probing, grown at half load.  Elements are never removed one by one;
 * an owner that reuses a position rebuilds the index.
 */
#include <stdlib.h>
#include <string.h>

#include "nameidx.h"
#include "task.h"

int
nameidx_find(const struct nameidx *x, const char *name)
{
	uint64_t		h;
	const struct nameidx_slot *sl;
	size_t			i;

	if (x->cap == 0)
		return -1;
	h = task_hash(name);
	for (i = h & (x->cap - 1); (sl = &x->slots[i])->pos >= 0;
	    i = (i + 1) & (x->cap - 1))
		if (sl->hash == (uint32_t)(h >> 32) &&
		    strcmp(x->name(x->ctx, (size_t)sl->pos), name) == 0)
			return sl->pos;
	return -1;
}

static void
place(struct nameidx *x, size_t k)
{
	uint64_t	h = task_hash(x->name(x->ctx, k));
	size_t		i;

	for (i = h & (x->cap - 1); x->slots[i].pos >= 0;
	    i = (i + 1) & (x->cap - 1))
		;
	x->slots[i].pos = (int)k;
	x->slots[i].hash = (uint32_t)(h >> 32);
}

void
nameidx_rebuild(struct nameidx *x, size_t n)
{
	size_t	k;

	for (k = 0; k < x->cap; k++)
		x->slots[k].pos = -1;
	for (k = 0; k < n; k++)
		place(x, k);
}

int
nameidx_add(struct nameidx *x, size_t n)
{
	if (n * 2 > x->cap) {
		size_t	 cap = x->cap == 0 ? 64 : x->cap * 2;
		struct nameidx_slot *slots = malloc(cap * sizeof *slots);

		if (slots == NULL)
			return -1;
		free(x->slots);
		x->slots = slots;
		x->cap = cap;
		nameidx_rebuild(x, n - 1);
	}
	place(x, n - 1);
	return 0;
}

void
nameidx_free(struct nameidx *x)
{
	free(x->slots);
	x->slots = NULL;
	x->cap = 0;
}
