/*
 * webpost.c -- what the dashboard may change (webpost.h): submit a
 * workflow file, checked as volery submit checks it, and cancel a task.
 * Bodies are JSON; a workflow is scheduled whole or not at all.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bounds.h"
#include "server.h"
#include "task.h"
#include "webpost.h"
#include "wfload.h"
#include "wfreq.h"
#include "workflow.h"

#define PROBLEMS_MAX	(64 * 1024)

static json_t *
error(int *code, int c, const char *why)
{
	*code = c;
	return json_pack("{s:s}", "error", why);
}

/* The checker's "file:line: message" lines as an array. */
static json_t *
problems(const char *text)
{
	json_t	*v = json_array();
	char	*copy = strdup(text), *p, *line;

	for (p = copy; p != NULL && (line = strsep(&p, "\n")) != NULL;)
		if (*line != '\0')
			json_array_append_new(v, json_string(line));
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
		(void)server_cancel(uuids[order[i]], err, sizeof err);
}

/* Schedule every task of wf in order; the answer, or an error. */
static json_t *
schedule_all(const struct workflow *wf, const int *order,
    char (*uuids)[UUID_STRLEN + 1], char (*arrays)[UUID_STRLEN + 1],
    const char *client, const char *user, int *code)
{
	char	 req[CLIENT_LINE_MAX + 1], err[256], why[512];
	json_t	*tasks = json_array();
	int	 i;

	for (i = 0; i < wf->ntasks; i++) {
		const struct wf_task *t = &wf->tasks[order[i]];
		if (wf_request(wf, t, uuids, arrays, req, sizeof req) == -1 ||
		    server_schedule_line(req, client, user, uuids[order[i]],
		    err, sizeof err) == -1) {
			snprintf(why, sizeof why, "%s:%ld: task '%s' was not "
			    "scheduled: %s", wf->file, t->line, t->id,
			    strncmp(req, "SCHEDULE", 8) == 0 ||
			    strncmp(req, "RUN", 3) == 0 ? err :
			    "its request is too long");
			unschedule(order, uuids, i);
			json_decref(tasks);
			*code = 400;
			return json_pack("{s:s, s:[s]}", "error", why,
			    "problems", why);
		}
		json_array_append_new(tasks, json_pack("{s:s, s:s, s:s}",
		    "id", t->id, "uuid", uuids[order[i]], "name", t->name));
	}
	server_sync();		/* durable before the answer */
	*code = 201;
	return json_pack("{s:s, s:o}", "workflow", uuids[order[0]], "tasks",
	    tasks);
}

json_t *
webpost_workflow(const char *body, size_t len, const char *client,
    const char *user, int *code)
{
	json_t		*in, *out;
	json_error_t	 jerr;
	struct workflow	 wf;
	const char	*name, *text;
	char		*err, (*uuids)[UUID_STRLEN + 1] = NULL;
	char		(*arrays)[UUID_STRLEN + 1] = NULL;
	int		*order = NULL, n;

	if ((in = json_loadb(body, len, 0, &jerr)) == NULL ||
	    json_unpack(in, "{s:s, s:s}", "name", &name, "text", &text) == -1) {
		json_decref(in);
		return error(code, 400, "a JSON object {\"name\": file name, "
		    "\"text\": the workflow file}");
	}
	if ((err = malloc(PROBLEMS_MAX)) == NULL) {
		json_decref(in);
		return error(code, 500, "out of memory");
	}
	memset(&wf, 0, sizeof wf);
	if ((n = wf_parse(name, text, strlen(text), &wf, err,
	    PROBLEMS_MAX)) == 0 && (order = calloc(wf.ntasks + 1,
	    sizeof *order)) != NULL)
		n = workflow_check(&wf, server_descs(), order, err,
		    PROBLEMS_MAX);
	if (n > 0) {
		char why[NAME_MAXLEN + 128];
		snprintf(why, sizeof why, "%.64s: %d problem%s; nothing was "
		    "submitted", name, n, n == 1 ? "" : "s");
		*code = 400;
		out = json_pack("{s:s, s:o}", "error", why, "problems",
		    problems(err));
		goto done;
	}
	uuids = calloc(wf.ntasks + 1, sizeof *uuids);
	arrays = calloc(wf.ntasks + 1, sizeof *arrays);
	if (order == NULL || uuids == NULL || arrays == NULL) {
		out = error(code, 500, "out of memory");
		goto done;
	}
	wf_array_uuids(&wf, arrays);
	out = wf.ntasks > 0 ? schedule_all(&wf, order, uuids, arrays, client,
	    user, code) : error(code, 400, "no task in the file");
done:
	free(order);
	free(uuids);
	free(arrays);
	free(err);
	workflow_free(&wf);
	json_decref(in);
	return out;
}

json_t *
webpost_cancel(const char *uuid, int *code)
{
	char	err[256];

	if (!task_uuid_valid(uuid))
		return error(code, 400, "not a task uuid");
	if (server_cancel(uuid, err, sizeof err) == -1)
		return error(code, strstr(err, "unknown") != NULL ? 404 : 409,
		    err);
	*code = 202;
	return json_pack("{s:s}", "cancelling", uuid);
}
