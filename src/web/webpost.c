/*
 * webpost.c -- what the dashboard may change (webpost.h): submit a
 * workflow file, checked as volery submit checks it, and cancel a task.
 * Bodies are JSON; a workflow is scheduled whole or not at all.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bounds.h"
#include "httpreply.h"
#include "node.h"
#include "runreq.h"
#include "service.h"
#include "task.h"
#include "taskjson.h"
#include "webpost.h"
#include "wfload.h"
#include "wfreq.h"
#include "workflow.h"

#define PROBLEMS_MAX	(64 * 1024)

static json_t *
error(int *code, int c, const char *why)
{
	*code = c;
	return json_pack("{s:o}", "error", json_text(why));
}

/* The checker's "file:line: message" lines as an array. */
static json_t *
problems(const char *text)
{
	json_t	*v = json_array();
	char	*copy = strdup(text), *p, *line;

	for (p = copy; p != NULL && (line = strsep(&p, "\n")) != NULL;)
		if (*line != '\0')
			json_array_append_new(v, json_text(line));
	free(copy);
	return v;
}

/* Cancel what was scheduled of a workflow that could not be whole. */
static void
unschedule(const int *order, char (*uuids)[UUID_STRLEN + 1], int n)
{
	char	err[256];
	int	i;

	for (i = n - 1; i >= 0; i--)
		(void)service_cancel(uuids[order[i]], NULL, NULL, err,
		    sizeof err);
}

/* "deadline_ms": when the task is to end by, ms since the epoch (the
 * core refuses one past), over a file's own; "deadline_strict": refused
 * if expected to miss it.  Why not, or NULL. */
static const char *
deadline_from_json(json_t *in, struct workflow *wf)
{
	json_t	*v = json_object_get(in, "deadline_ms");
	json_t	*strict = json_object_get(in, "deadline_strict");

	if (v != NULL && (!json_is_integer(v) || json_integer_value(v) <= 0 ||
	    json_integer_value(v) > INT64_MAX / 2))
		return "deadline_ms: when to end by, ms since the epoch";
	if (strict != NULL && !json_is_boolean(strict))
		return "deadline_strict: true or false";
	if (v != NULL)
		wf->deadline_ms = json_integer_value(v);
	if ((wf->deadline_strict = json_is_true(strict)) &&
	    wf->deadline_ms == 0)
		return "deadline_strict: with deadline_ms";
	return NULL;
}

/* A workflow being scheduled, a slice at a time (webpost.h). */
struct wf_post {
	json_t		 *in;
	struct workflow	  wf;
	int		 *order;
	char		(*uuids)[UUID_STRLEN + 1];
	char		(*arrays)[UUID_STRLEN + 1];
	struct http_who	  who;
	json_t		 *tasks;	/* the answer's, so far */
	int		  next;		/* in order */
	int64_t		  last;		/* the last forecast; -1 unknown */
};

void
webpost_workflow_free(struct wf_post *p)
{
	if (p == NULL)
		return;
	free(p->order);
	free(p->uuids);
	free(p->arrays);
	json_decref(p->tasks);
	workflow_free(&p->wf);
	json_decref(p->in);
	free(p);
}

/* Task i of the order scheduled; -1 with the answer in *out if not. */
static int
schedule_one(struct wf_post *p, int i, json_t **out, int *code)
{
	const struct workflow	*wf = &p->wf;
	const struct wf_task	*t = &wf->tasks[p->order[i]];
	char			(*uuids)[UUID_STRLEN + 1] = p->uuids;
	struct task_binding	 b[TASK_INPUTS_MAX];
	struct node_schedule_req sr;
	char			 err[256], why[512];
	json_t			*o;
	int64_t			 at;

	/* The task as data, as the core takes it: no request line is
	 * written and parsed again on the way. */
	wf_schedule_req(wf, t, uuids, p->arrays, b, &sr);
	sr.client = p->who.addr;
	sr.user = p->who.user;
	sr.has_uid = p->who.uid >= 0;
	sr.uid = p->who.uid;
	if (service_schedule_task(&sr, uuids[p->order[i]], err,
	    sizeof err) == -1) {
		snprintf(why, sizeof why, "%s:%ld: task '%s' was not "
		    "scheduled: %s", wf->file, t->line, t->id, err);
		unschedule(p->order, uuids, i);
		*code = 400;
		*out = json_pack("{s:o, s:[o]}", "error", json_text(why),
		    "problems", json_text(why));
		return -1;
	}
	o = json_pack("{s:o, s:s, s:o}", "id", json_text(t->id), "uuid",
	    uuids[p->order[i]], "name", json_text(t->name));
	/* With a deadline, when each should end: the workflow ends with
	 * the last (as volery submit tells it). */
	if (wf->deadline_ms > 0) {
		at = service_forecast(uuids[p->order[i]]);
		json_object_set_new(o, "deadline_ms",
		    json_integer(wf->deadline_ms));
		json_object_set_new(o, "forecast_ms", at >= 0 ?
		    json_integer(at) : json_null());
		p->last = wf_forecast_last(p->last, at);
	}
	json_array_append_new(p->tasks, o);
	return 0;
}

/* The 201's body, once every task is in. */
static json_t *
created(struct wf_post *p, int *code)
{
	json_t	*out;

	*code = 201;
	out = json_pack("{s:s, s:O}", "workflow", p->uuids[p->order[0]],
	    "tasks", p->tasks);
	if (p->wf.deadline_ms > 0) {
		json_object_set_new(out, "deadline_ms",
		    json_integer(p->wf.deadline_ms));
		json_object_set_new(out, "forecast_ms", p->last >= 0 ?
		    json_integer(p->last) : json_null());
	}
	return out;
}

int
webpost_workflow_step(struct wf_post *p, int max, json_t **out, int *code)
{
	for (; p->next < p->wf.ntasks && max-- > 0; p->next++)
		if (schedule_one(p, p->next, out, code) == -1)
			return 1;
	if (p->next < p->wf.ntasks)
		return 0;
	*out = created(p, code);
	return 1;
}

struct wf_post *
webpost_workflow(const char *body, size_t len, const struct http_who *who,
    json_t **out, int *code)
{
	struct wf_post	*p;
	json_error_t	 jerr;
	const char	*name, *text, *why;
	char		*err = NULL;
	int		 n, i;

	*out = NULL;
	if ((p = calloc(1, sizeof *p)) == NULL) {
		*out = error(code, 500, "out of memory");
		return NULL;
	}
	p->who = *who;
	if ((p->in = json_loadb(body, len, 0, &jerr)) == NULL ||
	    json_unpack(p->in, "{s:s, s:s}", "name", &name, "text",
	    &text) == -1) {
		*out = error(code, 400, "a JSON object {\"name\": file name, "
		    "\"text\": the workflow file}");
		goto fail;
	}
	if ((err = malloc(PROBLEMS_MAX)) == NULL) {
		*out = error(code, 500, "out of memory");
		goto fail;
	}
	if ((n = wf_parse(name, text, strlen(text), &p->wf, err,
	    PROBLEMS_MAX)) == 0 && (p->order = calloc(p->wf.ntasks + 1,
	    sizeof *p->order)) != NULL)
		n = workflow_check(&p->wf, service_descs(), p->order, err,
		    PROBLEMS_MAX);
	if (n > 0) {
		char head[NAME_MAXLEN + 128];
		snprintf(head, sizeof head, "%.64s: %d problem%s; nothing was "
		    "submitted", name, n, n == 1 ? "" : "s");
		*code = 400;
		*out = json_pack("{s:o, s:o}", "error", json_text(head),
		    "problems", problems(err));
		goto fail;
	}
	for (i = 0; i < p->wf.ntasks; i++)
		if (p->wf.tasks[i].nin_paths > 0) {
			*out = error(code, 400, "<in> names files where the "
			    "workflow file is: submit it with volery submit "
			    "from there");
			goto fail;
		}
	if ((why = deadline_from_json(p->in, &p->wf)) != NULL) {
		*out = error(code, 400, why);
		goto fail;
	}
	if (p->wf.ntasks == 0) {
		*out = error(code, 400, "no task in the file");
		goto fail;
	}
	p->uuids = calloc(p->wf.ntasks + 1, sizeof *p->uuids);
	p->arrays = calloc(p->wf.ntasks + 1, sizeof *p->arrays);
	if (p->order == NULL || p->uuids == NULL || p->arrays == NULL ||
	    (p->tasks = json_array()) == NULL) {
		*out = error(code, 500, "out of memory");
		goto fail;
	}
	wf_array_uuids(&p->wf, p->arrays);
	free(err);
	return p;
fail:
	free(err);
	webpost_workflow_free(p);
	return NULL;
}

/*
 * "task:1: " says nothing of a task sent as JSON: its problems without
 * it, the first of them its error.
 */
static void
unfile(json_t *out)
{
	json_t		*all = json_object_get(out, "problems"), *p;
	const char	*s;
	size_t		 i;

	json_array_foreach(all, i, p)
		if (strncmp(s = json_string_value(p), "task:1: ", 8) == 0)
			json_array_set_new(all, i, json_string(s + 8));
	if ((p = json_array_get(all, 0)) != NULL)
		json_object_set(out, "error", p);
}

/* Copy JSON strings into a fresh vector (for a task_cmd); -1 if any is
 * not a string or there are more than max. */
static int
strings(json_t *a, char ***v, int *n, int max)
{
	json_t	*x;
	size_t	 i;

	if (a == NULL)
		return 0;
	if (!json_is_array(a) || json_array_size(a) > (size_t)max ||
	    (*v = calloc(json_array_size(a) + 1, sizeof **v)) == NULL)
		return -1;
	json_array_foreach(a, i, x) {
		if (!json_is_string(x) || ((*v)[i] = strdup(
		    json_string_value(x))) == NULL)
			return -1;
		(*n)++;
	}
	return 0;
}

static char *
string(json_t *o, const char *key)
{
	json_t	*x = json_object_get(o, key);

	return json_is_string(x) ? strdup(json_string_value(x)) : NULL;
}

/* The JSON of one task as the task of a workflow file; why not, or NULL. */
static const char *
task_from_json(json_t *in, struct wf_task *t)
{
	static const char *known[] = { "name", "priority", "path", "params",
		"command", "cwd", "env", "time_limit_s", "stdout", "stderr",
		"outputs", "inputs", "cores", "memory_mb", "requires", "verify",
		"deadline_ms", "deadline_strict", "estimate_s", NULL };
	const char	*key, *prio = "low";
	json_t		*v, *inp;
	size_t		 i;
	int		 k;

	json_object_foreach(in, key, v) {
		for (k = 0; known[k] != NULL && strcmp(known[k], key) != 0; k++)
			;
		if (known[k] == NULL)
			return "unknown field: a task is name, priority, path, "
			    "params, command, cwd, env, time_limit_s, stdout, "
			    "stderr, outputs, inputs, cores, memory_mb, requires, "
			    "verify, deadline_ms, deadline_strict, estimate_s";
	}
	if ((v = json_object_get(in, "priority")) != NULL &&
	    (!json_is_string(v) || (strcmp(prio = json_string_value(v), "low")
	    != 0 && strcmp(prio, "interactive") != 0)))
		return "priority: low or interactive";
	snprintf(t->prio, sizeof t->prio, "%s", prio);
	t->prio_set = 1;
	t->line = 1;
	if ((v = json_object_get(in, "name")) != NULL && (!json_is_string(v) ||
	    snprintf(t->name, sizeof t->name, "%s", json_string_value(v)) >=
	    (int)sizeof t->name))
		return "name: a task description's name (or a command's)";
	if ((v = json_object_get(in, "command")) != NULL) {
		if ((t->cmd = calloc(1, sizeof *t->cmd)) == NULL ||
		    strings(v, &t->cmd->argv, &t->cmd->argc, CMD_ARGS_MAX) ==
		    -1 || t->cmd->argc == 0)
			return "command: the program and its arguments, strings";
		if (strings(json_object_get(in, "env"), &t->cmd->env,
		    &t->cmd->nenv, CMD_ENV_MAX) == -1 ||
		    strings(json_object_get(in, "outputs"), &t->cmd->outs,
		    &t->cmd->nouts, TASK_OUTPUTS_MAX) == -1)
			return "env, outputs: arrays of strings (NAME=value; "
			    "file:PATH or line:REGEX)";
		if ((t->cmd->cwd = string(in, "cwd")) != NULL &&
		    t->cmd->cwd[0] != '/')
			return "cwd: an absolute path, as the nodes see it";
		t->cmd->out = string(in, "stdout");
		t->cmd->err = string(in, "stderr");
		if ((v = json_object_get(in, "time_limit_s")) != NULL &&
		    (!json_is_integer(v) || json_integer_value(v) < 1 ||
		    json_integer_value(v) > 366LL * 86400))
			return "time_limit_s: seconds, 1 to a year";
		t->cmd->time_limit_ms = json_integer_value(v) * 1000;
		if (t->name[0] == '\0')
			runreq_name(t->cmd->argv[0], t->name, sizeof t->name);
	} else if (t->name[0] == '\0')
		return "a task is a name (of a task description) or a command";
	snprintf(t->id, sizeof t->id, "%s", t->name);	/* for its problems */
	t->path = string(in, "path");
	t->params = string(in, "params");
	if ((inp = json_object_get(in, "inputs")) != NULL &&
	    (!json_is_array(inp) || json_array_size(inp) > TASK_INPUTS_MAX))
		return "inputs: an array of {\"task\": uuid, \"output\": n}";
	json_array_foreach(inp, i, v) {
		json_int_t	 n;
		const char	*u;
		if (json_unpack(v, "{s:s, s:I}", "task", &u, "output", &n) ==
		    -1 || !task_uuid_valid(u) || n < 1 || n > TASK_OUTPUTS_MAX)
			return "inputs: an array of {\"task\": uuid, "
			    "\"output\": n}";
		if (workflow_inputs(t) == -1)
			return "out of memory";
		snprintf(t->inputs[i].task, sizeof t->inputs[i].task, "%s", u);
		t->inputs[i].output = (int)n;
		t->inputs[i].line = 1;
		t->ninputs = t->ninputs_seen = (int)i + 1;
	}
	if (((v = json_object_get(in, "cores")) != NULL &&
	    (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > 4096)) || ((v = json_object_get(in,
	    "memory_mb")) != NULL && (!json_is_integer(v) ||
	    json_integer_value(v) < 1)))
		return "cores, memory_mb: whole numbers from 1";
	if ((v = json_object_get(in, "verify")) != NULL &&
	    (!json_is_integer(v) || json_integer_value(v) < VERIFY_MIN ||
	    json_integer_value(v) > VERIFY_MAX))
		return "verify: how many nodes must agree, 2 to 9";
	t->verify = (int)json_integer_value(v);
	if ((v = json_object_get(in, "estimate_s")) != NULL &&
	    (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > TASK_EST_MAX / 1000))
		return "estimate_s: its run time in seconds, 1 to a year";
	t->est_ms = json_integer_value(v) * 1000;
	t->cores = (int)json_integer_value(json_object_get(in, "cores"));
	t->memory_mb = json_integer_value(json_object_get(in, "memory_mb"));
	/* requires: the tags as a workflow file's comma list. */
	if ((v = json_object_get(in, "requires")) != NULL) {
		json_t	*tag;
		size_t	 len = 1;
		if (!json_is_array(v) || json_array_size(v) > 32)
			return "requires: an array of tags";
		json_array_foreach(v, i, tag) {
			if (!json_is_string(tag))
				return "requires: an array of tags";
			len += strlen(json_string_value(tag)) + 1;
		}
		if ((t->tags = calloc(1, len)) == NULL)
			return "out of memory";
		json_array_foreach(v, i, tag)
			strcat(strcat(t->tags, i > 0 ? "," : ""),
			    json_string_value(tag));
	}
	return NULL;
}

json_t *
webpost_task(const char *body, size_t len, const struct http_who *who,
    int *code)
{
	json_t		*in, *out = NULL;
	struct wf_post	 p;	/* a workflow of one, on the stack */
	struct wf_task	 t;
	const char	*why;
	char		*err = NULL, uuids[1][UUID_STRLEN + 1] = { "" };
	char		 arrays[1][UUID_STRLEN + 1] = { "" };
	int		 order[1] = { 0 };

	if ((in = json_loadb(body, len, 0, NULL)) == NULL ||
	    !json_is_object(in)) {
		json_decref(in);
		return error(code, 400, "a JSON object: the task");
	}
	memset(&p, 0, sizeof p);
	memset(&t, 0, sizeof t);
	p.wf.file = "task";
	snprintf(p.wf.prio, sizeof p.wf.prio, "low");
	p.wf.tasks = &t;
	p.wf.ntasks = 1;
	p.order = order;
	p.uuids = uuids;
	p.arrays = arrays;
	p.who = *who;
	if ((why = task_from_json(in, &t)) != NULL)
		out = error(code, 400, why);
	else if ((why = deadline_from_json(in, &p.wf)) != NULL)
		out = error(code, 400, why);
	else if ((err = malloc(PROBLEMS_MAX)) == NULL ||
	    (p.tasks = json_array()) == NULL)
		out = error(code, 500, "out of memory");
	else if (workflow_check(&p.wf, service_descs(), order, err,
	    PROBLEMS_MAX) > 0) {
		*code = 400;
		out = json_pack("{s:s, s:o}", "error", "", "problems",
		    problems(err));
	} else if (webpost_workflow_step(&p, 1, &out, code) == 1 &&
	    out != NULL && *code == 201) {
		json_t *one = json_incref(json_array_get(json_object_get(out,
		    "tasks"), 0));
		json_decref(out);
		json_object_del(one, "id");
		out = one;
	}
	if (out != NULL && *code == 400 && json_object_get(out, "problems"))
		unfile(out);
	json_decref(p.tasks);
	free(err);
	free(t.path);
	free(t.params);
	free(t.tags);
	free(t.inputs);
	task_cmd_free(t.cmd);
	json_decref(in);
	return out;
}

json_t *
webpost_cancel(const char *uuid, const char *user, int *code)
{
	char	err[256];

	if (!task_uuid_valid(uuid))
		return error(code, 400, "not a task uuid");
	if (service_may_touch(user, uuid, err, sizeof err) == -1)
		return error(code, 403, err);
	if (service_cancel(uuid, NULL, NULL, err, sizeof err) == -1)
		return error(code, strstr(err, "unknown") != NULL ? 404 : 409,
		    err);
	*code = 202;
	return json_pack("{s:s}", "cancelling", uuid);
}
