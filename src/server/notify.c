/*
 * notify.c -- the listeners of the node's changes (notify.h), in the
 * order they registered.
 */
#include <stddef.h>

#include "notify.h"

static const struct notify_hook	*hooks[NOTIFY_HOOKS_MAX];
static int			 nhooks;

int
notify_add(const struct notify_hook *h)
{
	if (nhooks == NOTIFY_HOOKS_MAX)
		return -1;
	hooks[nhooks++] = h;
	return 0;
}

void
notify_task(const char *uuid, const char *snapshot)
{
	int	i;

	for (i = 0; i < nhooks; i++)
		if (hooks[i]->task_changed != NULL)
			hooks[i]->task_changed(uuid, snapshot);
}

void
notify_settled(void)
{
	int	i;

	for (i = 0; i < nhooks; i++)
		if (hooks[i]->settled != NULL)
			hooks[i]->settled();
}

void
notify_clear(void)
{
	nhooks = 0;
}
