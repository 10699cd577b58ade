/*
 * taskdesc.c -- the set of known task descriptions.
 */
#include <stdlib.h>
#include <string.h>

#include "taskdesc.h"

const struct taskdesc *
taskdesc_find(const struct taskdesc_set *set, const char *name)
{
	size_t	i;

	for (i = 0; i < set->n; i++)
		if (strcmp(set->v[i].name, name) == 0)
			return &set->v[i];
	return NULL;
}

/* Add or replace the description of the same name. */
int
taskdesc_add(struct taskdesc_set *set, const struct taskdesc *d)
{
	struct taskdesc	*v;
	size_t		 i;

	for (i = 0; i < set->n; i++) {
		if (strcmp(set->v[i].name, d->name) == 0) {
			set->v[i] = *d;
			return 0;
		}
	}
	if ((v = realloc(set->v, (set->n + 1) * sizeof *v)) == NULL)
		return -1;
	set->v = v;
	set->v[set->n++] = *d;
	return 0;
}

void
taskdesc_clear(struct taskdesc_set *set)
{
	free(set->v);
	set->v = NULL;
	set->n = 0;
}
