/*
 * wfreq.h -- a workflow file's task as the request that schedules it:
 * what volery submit sends, and what a node's HTTP submit runs.
 */
#ifndef VOLERY_WFREQ_H
#define VOLERY_WFREQ_H

#include <stddef.h>

#include "bounds.h"
#include "workflow.h"

/*
 * t's request line: RUN for a command, else SCHEDULE, its inputs bound
 * to uuids[k] (task k of the file, scheduled before it) or to the uuid
 * the file gave; a task of a <foreach> is one of the array arrays[t->array
 * - 1].  -1 if it is longer than size.
 */
int	wf_request(const struct workflow *, const struct wf_task *t,
	    char (*uuids)[UUID_STRLEN + 1], char (*arrays)[UUID_STRLEN + 1],
	    char *req, size_t size);

/* A fresh uuid for each <foreach> of wf: arrays[k] is array k + 1's
 * (arrays zeroed, one per task at most). */
void	wf_array_uuids(const struct workflow *,
	    char (*arrays)[UUID_STRLEN + 1]);

#endif
