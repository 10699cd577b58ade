/*
 * wfreq.c -- a workflow file's task as its SCHEDULE or RUN line
 * (wfreq.h).
 */
#include <stdio.h>
#include <string.h>

#include <uuid/uuid.h>

#include "runreq.h"
#include "task.h"
#include "wfreq.h"

/* The uuid input k of t reads from: its task's in this file, or the
 * uuid the file gave. */
static const char *
input_uuid(const struct workflow *wf, const struct wf_task *t, int k,
    char (*uuids)[UUID_STRLEN + 1])
{
	int	up = workflow_find(wf, t->inputs[k].task);

	return up >= 0 ? uuids[up] : t->inputs[k].task;
}

/*
 * t's request line: RUN for a command, else SCHEDULE; -1 if too long.
 * A task of a <foreach> is one of an array: its uuid is arrays[t->array
 * - 1].
 */
int
wf_request(const struct workflow *wf, const struct wf_task *t,
    char (*uuids)[UUID_STRLEN + 1], char (*arrays)[UUID_STRLEN + 1],
    char *req, size_t size)
{
	struct task_binding	 b[TASK_INPUTS_MAX];
	struct runreq_extra	 x;
	const char		*prio = t->prio_set ? t->prio : wf->prio;
	size_t			 off;
	int			 k;

	memset(&x, 0, sizeof x);
	if (t->array > 0) {
		snprintf(x.array, sizeof x.array, "%s", arrays[t->array - 1]);
		x.index = t->array_index;
		x.max_running = t->array_max;
	}
	x.cores = t->cores;
	x.memory_mb = t->memory_mb;
	x.tags = t->tags;
	if (t->cmd != NULL) {
		for (k = 0; k < t->ninputs; k++) {
			snprintf(b[k].uuid, sizeof b[k].uuid, "%s",
			    input_uuid(wf, t, k, uuids));
			b[k].nth = t->inputs[k].output;
		}
		return runreq_format(req, size, t->name, prio, t->cmd, b,
		    t->ninputs, &x);
	}
	off = snprintf(req, size, "SCHEDULE %s %s", t->name, prio);
	if (off < size && runreq_extra(req, size, &off, &x) == -1)
		return -1;
	if (t->path != NULL && off < size)
		off += snprintf(req + off, size - off, " -p %s", t->path);
	for (k = 0; k < t->ninputs && off < size; k++)
		off += snprintf(req + off, size - off, " -a %s %d",
		    input_uuid(wf, t, k, uuids), t->inputs[k].output);
	if (t->params != NULL && off < size)
		off += snprintf(req + off, size - off, " -x %s", t->params);
	return off >= size - 1 ? -1 : 0;
}


void
wf_array_uuids(const struct workflow *wf, char (*arrays)[UUID_STRLEN + 1])
{
	uuid_t	raw;
	int	i;

	for (i = 0; i < wf->ntasks; i++) {
		if (wf->tasks[i].array == 0 || arrays[wf->tasks[i].array - 1][0])
			continue;
		uuid_generate_random(raw);
		uuid_unparse_lower(raw, arrays[wf->tasks[i].array - 1]);
	}
}
