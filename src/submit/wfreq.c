/*
 * wfreq.c -- a workflow file's task as the core takes it, and as the
 * SCHEDULE or RUN line that carries it (wfreq.h).
 */
#include <stdio.h>
#include <string.h>

#include <uuid/uuid.h>

#include "node.h"
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

void
wf_schedule_req(const struct workflow *wf, const struct wf_task *t,
    char (*uuids)[UUID_STRLEN + 1], char (*arrays)[UUID_STRLEN + 1],
    struct task_binding *b, struct node_schedule_req *sr)
{
	enum task_prio	prio = PRIO_LOW;
	int		k;

	(void)task_prio_parse(t->prio_set ? t->prio : wf->prio, &prio);
	memset(sr, 0, sizeof *sr);
	sr->exec = t->name;
	sr->prio = prio;
	sr->path = t->path;
	sr->params = t->params;
	sr->cmd = t->cmd;
	for (k = 0; k < t->ninputs; k++) {
		/* A uuid, as the check made sure. */
		snprintf(b[k].uuid, sizeof b[k].uuid, "%.*s", UUID_STRLEN,
		    input_uuid(wf, t, k, uuids));
		b[k].nth = t->inputs[k].output;
	}
	sr->nbind = t->ninputs;
	sr->bind = b;
	if (t->array > 0) {
		sr->array = arrays[t->array - 1];
		sr->array_index = t->array_index;
		sr->array_max = t->array_max;
	}
	sr->cores = t->cores;
	sr->memory_mb = t->memory_mb;
	sr->tags = t->tags;
	sr->verify = t->verify;
	sr->est_ms = t->est_ms;
	sr->deadline_ms = wf->deadline_ms;
	sr->deadline_strict = wf->deadline_strict;
}

int
wf_request(const struct workflow *wf, const struct wf_task *t,
    char (*uuids)[UUID_STRLEN + 1], char (*arrays)[UUID_STRLEN + 1],
    char *req, size_t size)
{
	struct task_binding		 b[TASK_INPUTS_MAX];
	struct node_schedule_req	 sr;
	struct runreq_extra		 x;
	size_t				 off;
	int				 k;

	wf_schedule_req(wf, t, uuids, arrays, b, &sr);
	memset(&x, 0, sizeof x);
	if (sr.array != NULL) {
		snprintf(x.array, sizeof x.array, "%s", sr.array);
		x.index = sr.array_index;
		x.max_running = sr.array_max;
	}
	x.cores = sr.cores;
	x.memory_mb = sr.memory_mb;
	x.tags = sr.tags;
	x.verify = sr.verify;
	x.est_ms = sr.est_ms;
	x.deadline_ms = sr.deadline_ms;
	x.deadline_strict = sr.deadline_strict;
	if (sr.cmd != NULL)
		return runreq_format(req, size, sr.exec,
		    task_prio_name(sr.prio), sr.cmd, sr.bind, sr.nbind, &x);
	off = snprintf(req, size, "SCHEDULE %s %s", sr.exec,
	    task_prio_name(sr.prio));
	if (off < size && runreq_extra(req, size, &off, &x) == -1)
		return -1;
	if (sr.path != NULL && off < size)
		off += snprintf(req + off, size - off, " -p %s", sr.path);
	for (k = 0; k < sr.nbind && off < size; k++)
		off += snprintf(req + off, size - off, " -a %s %d",
		    sr.bind[k].uuid, sr.bind[k].nth);
	if (sr.params != NULL && off < size)
		off += snprintf(req + off, size - off, " -x %s", sr.params);
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

int64_t
wf_forecast_last(int64_t last, int64_t at)
{
	if (last < 0 || at < 0)
		return -1;
	return at > last ? at : last;
}
