/*
 * uuidlist.c -- a growable list of uuids.
 */
#include <stdlib.h>
#include <string.h>

#include "uuidlist.h"

int
uuidlist_add(struct uuidlist *l, const char *uuid)
{
	/* Small first: most lists (a task's dependents) hold one or two,
	 * and every node keeps one per task. */
	if (l->n == l->cap) {
		size_t cap = l->cap == 0 ? 2 : l->cap * 2;
		char (*v)[UUID_STRLEN + 1] = realloc(l->v, cap * sizeof *v);
		if (v == NULL)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	memcpy(l->v[l->n], uuid, UUID_STRLEN);
	l->v[l->n++][UUID_STRLEN] = '\0';
	return 0;
}

void
uuidlist_free(struct uuidlist *l)
{
	free(l->v);
	memset(l, 0, sizeof *l);
}
