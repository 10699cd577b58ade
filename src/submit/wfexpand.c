/*
 * wfexpand.c -- <foreach> repeated (wfexpand.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrayspec.h"
#include "errlist.h"
#include "wfexpand.h"
#include "workflow.h"

/* Replace *s by itself with {i} as value; -1 out of memory. */
static int
fill(char **s, int value)
{
	char	*x;

	if (*s == NULL)
		return 0;
	if ((x = arrayspec_fill(*s, value)) == NULL)
		return -1;
	free(*s);
	*s = x;
	return 0;
}

static int
fill_list(char **v, int n, int value)
{
	int	i;

	for (i = 0; i < n; i++)
		if (fill(&v[i], value) == -1)
			return -1;
	return 0;
}

/* A copy of t for value: its own strings, {i} filled in. */
static int
copy_for(struct wf_task *dst, const struct wf_task *t, int value)
{
	*dst = *t;
	dst->path = t->path != NULL ? strdup(t->path) : NULL;
	dst->params = t->params != NULL ? strdup(t->params) : NULL;
	dst->cmd = t->cmd != NULL ? task_cmd_dup(t->cmd) : NULL;
	dst->tags = t->tags != NULL ? strdup(t->tags) : NULL;
	dst->inputs = NULL;
	dst->in_paths = NULL;
	dst->nin_paths = 0;
	if (t->nin_paths > 0 && (dst->in_paths = calloc(t->nin_paths,
	    sizeof *dst->in_paths)) != NULL)
		for (; dst->nin_paths < t->nin_paths; dst->nin_paths++)
			if ((dst->in_paths[dst->nin_paths] =
			    strdup(t->in_paths[dst->nin_paths])) == NULL)
				return -1;
	if (t->inputs != NULL && workflow_inputs(dst) == 0)
		memcpy(dst->inputs, t->inputs, t->ninputs * sizeof *t->inputs);
	if ((t->path != NULL && dst->path == NULL) ||
	    (t->inputs != NULL && dst->inputs == NULL) ||
	    (t->tags != NULL && dst->tags == NULL) ||
	    (t->params != NULL && dst->params == NULL) ||
	    (t->cmd != NULL && dst->cmd == NULL) ||
	    (t->nin_paths > 0 && dst->in_paths == NULL) ||
	    fill(&dst->path, value) == -1 || fill(&dst->params, value) == -1 ||
	    fill_list(dst->in_paths, dst->nin_paths, value) == -1)
		return -1;
	if (dst->cmd != NULL && (fill_list(dst->cmd->argv, dst->cmd->argc,
	    value) == -1 || fill_list(dst->cmd->env, dst->cmd->nenv,
	    value) == -1 || fill_list(dst->cmd->outs, dst->cmd->nouts,
	    value) == -1 || fill(&dst->cmd->cwd, value) == -1 ||
	    fill(&dst->cmd->out, value) == -1 || fill(&dst->cmd->err,
	    value) == -1))
		return -1;
	return 0;
}

/* Add input i, reading the copy for value, to in[*n]; -1 if full. */
static int
add_input(struct wf_input *in, int *n, const struct wf_input *i, int value)
{
	if (*n == TASK_INPUTS_MAX)
		return -1;
	in[*n] = *i;
	if (value >= 0)
		snprintf(in[*n].task, sizeof in[*n].task, "%.64s[%d]", i->task,
		    value);
	(*n)++;
	return 0;
}

/*
 * t's inputs as they read the copies: of value (t is a copy for it), or
 * every copy, in order (t is outside the <foreach>es: value < 0).
 */
static void
rebind(struct errlist *l, const struct workflow *tmpl,
    const struct arrayspec *specs, struct wf_task *t, int value)
{
	struct wf_input	in[TASK_INPUTS_MAX];
	int		k, j, up, n = 0, full = 0;

	for (k = 0; k < t->ninputs; k++) {
		const struct wf_input *i = &t->inputs[k];
		const struct arrayspec *s;
		up = workflow_find(tmpl, i->task);
		if (up < 0 || tmpl->tasks[up].foreach == 0) {
			full |= add_input(in, &n, i, -1);
			continue;
		}
		if (value >= 0 && tmpl->tasks[up].foreach != t->foreach) {
			errlist_add(l, i->line, "task '%s' input %d: '%s' is "
			    "repeated by another <foreach>: which of its "
			    "copies?", t->id, k + 1, i->task);
			continue;
		}
		s = &specs[tmpl->tasks[up].foreach - 1];
		if (value >= 0)
			full |= add_input(in, &n, i, value);
		for (j = 0; value < 0 && j < s->n; j++)
			full |= add_input(in, &n, i, s->v[j]);
	}
	if (full)
		errlist_add(l, t->line, "task '%s': more than %d inputs once "
		    "its <foreach> inputs are counted", t->id, TASK_INPUTS_MAX);
	if (n > 0)	/* it had inputs: it has their room */
		memcpy(t->inputs, in, n * sizeof in[0]);
	t->ninputs = t->ninputs_seen = n;
}

void
wf_expand(struct errlist *l, struct workflow *wf,
    const struct arrayspec *specs, int nspecs)
{
	struct workflow	 tmpl = *wf;
	struct wf_task	*out, *t;
	long		 total = 0;
	int		 i, j, n = 0, array = 0;

	for (i = 0; i < wf->ntasks; i++)
		total += wf->tasks[i].foreach > 0 ?
		    specs[wf->tasks[i].foreach - 1].n : 1;
	if (total > WORKFLOW_TASKS_MAX) {
		errlist_add(l, 1, "more than %d tasks once the <foreach>es "
		    "are repeated (%ld)", WORKFLOW_TASKS_MAX, total);
		return;
	}
	if ((out = calloc(total, sizeof *out)) == NULL) {
		errlist_add(l, 1, "out of memory");
		return;
	}
	for (i = 0; i < tmpl.ntasks; i++) {
		const struct wf_task *u = &tmpl.tasks[i];
		const struct arrayspec *s;
		if (u->foreach == 0) {
			t = &out[n++];
			*t = *u;	/* its strings move over */
			tmpl.tasks[i].path = tmpl.tasks[i].params = NULL;
			tmpl.tasks[i].tags = NULL;
			tmpl.tasks[i].inputs = NULL;
			tmpl.tasks[i].cmd = NULL;
			tmpl.tasks[i].in_paths = NULL;
			tmpl.tasks[i].nin_paths = 0;
			rebind(l, &tmpl, specs, t, -1);
			continue;
		}
		s = &specs[u->foreach - 1];
		array++;
		for (j = 0; j < s->n; j++) {
			t = &out[n++];
			if (copy_for(t, u, s->v[j]) == -1)
				errlist_add(l, u->line, "out of memory");
			if (snprintf(t->id, sizeof t->id, "%s[%d]", u->id,
			    s->v[j]) >= (int)sizeof t->id)
				errlist_add(l, u->line, "id '%s' is too long "
				    "for a <foreach>", u->id);
			t->array = array;
			t->array_index = s->v[j];
			t->array_max = s->max_running;
			rebind(l, &tmpl, specs, t, s->v[j]);
		}
	}
	workflow_free(&tmpl);
	wf->tasks = out;
	wf->ntasks = n;
}
