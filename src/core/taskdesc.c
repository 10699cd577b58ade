/*
 * taskdesc.c -- the set of known task descriptions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "task.h"
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

int
taskdesc_admissible(const struct taskdesc_set *set, const struct task *t,
    char *why, size_t whylen)
{
	const struct taskdesc	*d;

	if ((d = taskdesc_find(set, t->exec)) == NULL)
		snprintf(why, whylen, "no description of %s in tasks_dir",
		    t->exec);
	else if (t->ninputs != d->ninputs)
		snprintf(why, whylen, "%d inputs bound, its description "
		    "takes %d", t->ninputs, d->ninputs);
	else if (d->needs_path && t->path == NULL)
		snprintf(why, whylen, "no -p, which its description needs");
	else if (d->cannot_run[0] != '\0')
		snprintf(why, whylen, "%s", d->cannot_run);
	else
		return 1;
	return 0;
}
