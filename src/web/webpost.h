/*
 * webpost.h -- the API's POSTs (volery-api(7)): what the dashboard may
 * change.  Each returns the answer and its HTTP status in *code.
 */
#ifndef VOLERY_WEBPOST_H
#define VOLERY_WEBPOST_H

#include <stddef.h>

#include <jansson.h>

struct http_who;

struct wf_post;

/* POST /api/workflows {"name", "text"}: checked whole as volery submit
 * checks it (NULL with the 400 in *out, "problems" its file:line lines),
 * then scheduled upstream first, max tasks a step, so that a big file
 * never holds the node (issue 40): a step returns 1 with the answer in
 * *out (201 with the workflow's and each task's uuid, or why not, what
 * was scheduled of it cancelled), 0 with more to do. */
struct wf_post *webpost_workflow(const char *body, size_t len,
	    const struct http_who *, json_t **out, int *code);
int	 webpost_workflow_step(struct wf_post *, int max, json_t **out,
	    int *code);
void	 webpost_workflow_free(struct wf_post *);
/* POST /api/tasks {name, priority, path, params, command, cwd, env,
 * time_limit_s, stdout, stderr, outputs, inputs, cores, memory_mb,
 * requires}: one task, checked as a workflow file's would be (400 with
 * why), scheduled (201 with its uuid and name). */
json_t	*webpost_task(const char *body, size_t len,
	    const struct http_who *, int *code);
/* POST /api/tasks/<uuid>/cancel by user: 202 once proposed (the end
 * comes on the event stream); 403 if the task is not user's. */
json_t	*webpost_cancel(const char *uuid, const char *user, int *code);

#endif
