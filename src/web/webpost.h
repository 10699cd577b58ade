/*
 * webpost.h -- the API's POSTs (volery-api(7)): what the dashboard may
 * change.  Each returns the answer and its HTTP status in *code.
 */
#ifndef VOLERY_WEBPOST_H
#define VOLERY_WEBPOST_H

#include <stddef.h>

#include <jansson.h>

struct http_who;

/* POST /api/workflows {"name", "text"}: checked whole as volery submit
 * checks it (400 with "problems", its file:line lines), then scheduled
 * upstream first (201 with the workflow's and each task's uuid). */
json_t	*webpost_workflow(const char *body, size_t len,
	    const struct http_who *, int *code);
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
