/*
 * workflow.c -- check a workflow against the task descriptions, all of
 * it, before anything is scheduled: an operator fixes every line at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errlist.h"
#include "task.h"
#include "workflow.h"

static const char *
id_of(const void *wf, size_t i)
{
	return ((const struct workflow *)wf)->tasks[i].id;
}

void
workflow_index(struct workflow *wf)
{
	int	i;

	wf->ids.name = id_of;
	wf->ids.ctx = wf;
	for (i = 0; i < wf->ntasks; i++)
		if (nameidx_add(&wf->ids, (size_t)i + 1) == -1) {
			nameidx_free(&wf->ids);
			return;
		}
}

int
workflow_inputs(struct wf_task *t)
{
	if (t->inputs == NULL &&
	    (t->inputs = calloc(TASK_INPUTS_MAX, sizeof *t->inputs)) == NULL)
		return -1;
	return 0;
}

int
workflow_find(const struct workflow *wf, const char *id)
{
	int	i;

	/* Of twins the first: its probe comes first (nameidx.c). */
	if (wf->ids.cap > 0)
		return nameidx_find(&wf->ids, id);
	for (i = 0; i < wf->ntasks; i++)
		if (strcmp(wf->tasks[i].id, id) == 0)
			return i;
	return -1;
}

/* One task's own fields and its inputs, against its description. */
static void
check_task(const struct workflow *wf, const struct taskdesc_set *descs,
    int i, struct errlist *e)
{
	const struct wf_task	*t = &wf->tasks[i];
	const struct taskdesc	*d = t->cmd != NULL ? NULL :
				    taskdesc_find(descs, t->name);
	char			 why[REASON_MAXLEN];
	int			 k, up, nout;

	if (workflow_find(wf, t->id) != i)
		errlist_add(e, t->line, "duplicate task id '%s' (first on line "
		    "%ld)", t->id, wf->tasks[workflow_find(wf, t->id)].line);
	if (t->cmd != NULL && task_cmd_check(t->cmd, why, sizeof why) == -1)
		errlist_add(e, t->line, "command '%s': %s", t->id, why);
	if (d == NULL && t->cmd == NULL) {
		errlist_add(e, t->line, "task '%s': no task named '%s' in the "
		    "task descriptions", t->id, t->name);
		return;
	}
	if (d != NULL && d->needs_path && t->path == NULL)
		errlist_add(e, t->line, "task '%s': %s needs a <path>", t->id,
		    t->name);
	if (d != NULL && t->ninputs_seen != d->ninputs)
		errlist_add(e, t->line, "task '%s': %s takes %d input%s, not %d",
		    t->id, t->name, d->ninputs, d->ninputs == 1 ? "" : "s",
		    t->ninputs_seen);
	for (k = 0; k < t->ninputs && (d == NULL || k < d->ninputs); k++) {
		const struct wf_input *in = &t->inputs[k];
		const struct wf_task *u;
		const struct taskdesc *ud;
		if ((up = workflow_find(wf, in->task)) == -1) {
			/* A task scheduled before: the node checks it. */
			if (!task_uuid_valid(in->task))
				errlist_add(e, in->line, "task '%s' input %d: no "
				    "task '%s' in this file (nor is it a "
				    "uuid)", t->id, k + 1, in->task);
			continue;
		}
		if (up == i) {
			errlist_add(e, in->line, "task '%s' input %d: a task "
			    "cannot read its own output", t->id, k + 1);
			continue;
		}
		u = &wf->tasks[up];
		ud = u->cmd != NULL ? NULL : taskdesc_find(descs, u->name);
		if (ud == NULL && u->cmd == NULL)
			continue;	/* reported on its own line */
		nout = ud != NULL ? ud->noutputs : u->cmd->nouts;
		if (in->output < 1 || in->output > nout)
			errlist_add(e, in->line, "task '%s' input %d: %s '%s' has "
			    "%d output%s; there is no output %d", t->id, k + 1,
			    u->name, in->task, nout, nout == 1 ? "" : "s",
			    in->output);
		else if (d == NULL)
			continue;	/* a command takes any input */
		else if (d->inputs[k].type[0] != '\0' && (ud == NULL ||
		    strcmp(d->inputs[k].type, ud->type) != 0))
			errlist_add(e, in->line, "task '%s' input %d: %s wants "
			    "an output of %s here, not of %s '%s'", t->id,
			    k + 1, d->name, d->inputs[k].type, ud != NULL ?
			    ud->type : "a command", in->task);
		else if (d->inputs[k].nth != 0 &&
		    d->inputs[k].nth != in->output)
			errlist_add(e, in->line, "task '%s' input %d: %s wants "
			    "output %d of %s here, not %d", t->id, k + 1,
			    d->name, d->inputs[k].nth, d->inputs[k].type,
			    in->output);
	}
}

/*
 * Dependency order (Kahn): each input read from a task of the file is
 * an edge; a task goes in once all its upstream tasks are in, in file
 * order among those ready.  What never goes in lies on a cycle.  Linear
 * in tasks and inputs, so a long chain written bottom-up stays cheap.
 */
static void
order_tasks(const struct workflow *wf, int *order, struct errlist *e)
{
	int	 n = wf->ntasks, head = 0, tail = 0, i, k, d, u;
	int	*up, *indeg, *first, *fill, *down;

	/* up: each input's task index; down[first[u] .. first[u + 1]):
	 * the tasks reading u's outputs. */
	up = calloc((size_t)n * TASK_INPUTS_MAX + 1, sizeof *up);
	indeg = calloc(n + 1, sizeof *indeg);
	first = calloc(n + 2, sizeof *first);
	fill = calloc(n + 1, sizeof *fill);
	down = calloc((size_t)n * TASK_INPUTS_MAX + 1, sizeof *down);
	if (up == NULL || indeg == NULL || first == NULL || fill == NULL ||
	    down == NULL) {
		errlist_add(e, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < wf->tasks[i].ninputs; k++) {
			u = workflow_find(wf, wf->tasks[i].inputs[k].task);
			up[i * TASK_INPUTS_MAX + k] = u;
			if (u >= 0) {
				indeg[i]++;
				first[u + 1]++;
			}
		}
	for (u = 0; u < n; u++) {
		first[u + 1] += first[u];
		fill[u] = first[u];
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < wf->tasks[i].ninputs; k++)
			if ((u = up[i * TASK_INPUTS_MAX + k]) >= 0)
				down[fill[u]++] = i;
	for (i = 0; i < n; i++)
		if (indeg[i] == 0)
			order[tail++] = i;
	while (head < tail) {
		u = order[head++];
		for (d = first[u]; d < first[u + 1]; d++)
			if (--indeg[down[d]] == 0)
				order[tail++] = down[d];
	}
	for (i = 0; i < n; i++)
		if (indeg[i] > 0)
			errlist_add(e, wf->tasks[i].line, "task '%s' is on a "
			    "dependency cycle", wf->tasks[i].id);
out:
	free(up);
	free(indeg);
	free(first);
	free(fill);
	free(down);
}

int
workflow_check(const struct workflow *wf, const struct taskdesc_set *descs,
    int *order, char *err, size_t errlen)
{
	struct errlist	e;
	int		i;

	errlist_init(&e, wf->file, err, errlen);
	if (wf->ntasks == 0)
		errlist_add(&e, 1, "the workflow has no task");
	for (i = 0; i < wf->ntasks; i++)
		check_task(wf, descs, i, &e);
	order_tasks(wf, order, &e);
	return e.count;
}

void
workflow_free(struct workflow *wf)
{
	int	i;

	for (i = 0; i < wf->ntasks; i++) {
		free(wf->tasks[i].path);
		free(wf->tasks[i].params);
		free(wf->tasks[i].tags);
		free(wf->tasks[i].inputs);
		while (wf->tasks[i].nin_paths > 0)
			free(wf->tasks[i].in_paths[--wf->tasks[i].nin_paths]);
		free(wf->tasks[i].in_paths);
		task_cmd_free(wf->tasks[i].cmd);
	}
	free(wf->tasks);
	wf->tasks = NULL;
	wf->ntasks = 0;
	nameidx_free(&wf->ids);
}
