/*
 * depindex.c -- who depends on whom: for each upstream uuid, the uuids
 * of the tasks bound to its outputs.  Binding a result, ending a tree
 * and redoing a task touch those dependents only, not the whole map.
 * An array of entries, found by uuid through a uuidmap.
 */
#include <stdlib.h>
#include <string.h>

#include "depindex.h"

static struct dep_entry *
entry(const struct depindex *x, const char *up)
{
	int64_t	i;

	return uuidmap_get(&x->index, up, &i) ? &x->v[i] : NULL;
}

int
depindex_add(struct depindex *x, const char *up, const char *down)
{
	struct dep_entry	*e;
	size_t			 k;

	if ((e = entry(x, up)) == NULL) {
		if (x->n == x->cap) {
			size_t cap = x->cap == 0 ? 64 : x->cap * 2;
			struct dep_entry *v = realloc(x->v, cap * sizeof *v);
			if (v == NULL)
				return -1;
			x->v = v;
			x->cap = cap;
		}
		if (uuidmap_put(&x->index, up, (int64_t)x->n) == -1)
			return -1;
		e = &x->v[x->n++];
		memset(e, 0, sizeof *e);
		memcpy(e->up, up, UUID_STRLEN);
		e->up[UUID_STRLEN] = '\0';
	}
	for (k = 0; k < e->down.n; k++)
		if (strcmp(e->down.v[k], down) == 0)
			return 0;
	return uuidlist_add(&e->down, down);
}

void
depindex_del(struct depindex *x, const char *up, const char *down)
{
	struct dep_entry	*e;
	size_t			 k;

	if ((e = entry(x, up)) == NULL)
		return;
	for (k = 0; k < e->down.n; k++)
		if (strcmp(e->down.v[k], down) == 0) {
			memmove(e->down.v[k], e->down.v[k + 1],
			    (e->down.n - k - 1) * sizeof e->down.v[0]);
			e->down.n--;
			break;
		}
	if (e->down.n > 0)
		return;
	/* No dependent left: the last entry takes its place. */
	uuidlist_free(&e->down);
	uuidmap_del(&x->index, up);
	*e = x->v[--x->n];
	if (e != &x->v[x->n])
		uuidmap_put(&x->index, e->up, (int64_t)(e - x->v));
}

const char (*depindex_get(const struct depindex *x, const char *up,
    int *count))[UUID_STRLEN + 1]
{
	const struct dep_entry	*e = entry(x, up);

	*count = e != NULL ? (int)e->down.n : 0;
	return e != NULL ? (const char (*)[UUID_STRLEN + 1])e->down.v : NULL;
}

void
depindex_free(struct depindex *x)
{
	size_t	i;

	for (i = 0; i < x->n; i++)
		uuidlist_free(&x->v[i].down);
	free(x->v);
	uuidmap_free(&x->index);
	memset(x, 0, sizeof *x);
}
