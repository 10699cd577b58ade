/*
 * fuzz_webpost.c -- libFuzzer: any bytes as the body of POST
 * /api/workflows or POST /api/tasks (webpost.h), against a stand-in for
 * the node that schedules whatever it is handed.  Every answer is JSON:
 * 201 with the uuids, or 400 with why; what the stand-in scheduled for
 * a refused body is cancelled again; nothing crashes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "node.h"
#include "service.h"
#include "task.h"
#include "taskdesc.h"
#include "httpreply.h"
#include "webpost.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int	scheduled;	/* by the stand-in, not cancelled */

int
service_schedule_task(const struct node_schedule_req *req, char *uuid,
    char *err, size_t errlen)
{
	char	line[8192];

	/* What the node would refuse, refused, as the core does. */
	if (!task_name_valid(req->exec) || (req->cmd != NULL &&
	    task_cmd_check(req->cmd, err, errlen) == -1))
		return -1;
	snprintf(line, sizeof line, "%s %s %s", req->exec,
	    req->path != NULL ? req->path : "", req->params != NULL ?
	    req->params : "");
	if (strlen(line) % 7 == 0) {	/* now and then, the node says no */
		snprintf(err, errlen, "refused");
		return -1;
	}
	snprintf(uuid, 37, "00000000-0000-4000-8000-%012d", ++scheduled);
	return 0;
}

int64_t
service_forecast(const char *uuid)
{
	return uuid[35] % 3 == 0 ? -1 : 1000;	/* unknown now and then */
}

int
service_cancel(const char *uuid, void (*await)(void *), void *arg,
    char *err, size_t errlen)
{
	scheduled--;
	return 0;
}

int
service_may_touch(const char *user, const char *uuid, char *err,
    size_t errlen)
{
	return 0;
}

const struct taskdesc_set *
service_descs(void)
{
	static struct taskdesc_set	descs;

	return &descs;
}

/* POST /api/workflows as the node takes it: parsed, then a slice at a
 * time (a small one here, so that a refusal may come after slices). */
static json_t *
workflow(const char *body, size_t len, const struct http_who *who,
    int *code)
{
	struct wf_post	*p;
	json_t		*v = NULL;

	if ((p = webpost_workflow(body, len, who, &v, code)) == NULL)
		return v;
	while (!webpost_workflow_step(p, 3, &v, code))
		;
	webpost_workflow_free(p);
	return v;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_who	 who = { "http/127.0.0.1:1", "fuzz", 1000 };
	json_t		*v;
	int		 code, before = scheduled;

	if (size < 1)
		return 0;
	v = (data[0] & 1 ? webpost_task : workflow)(
	    (const char *)data + 1, size - 1, &who, &code);
	if (v == NULL || (code != 201 && code != 400 && code != 500) ||
	    (code != 201 && (!json_is_string(json_object_get(v, "error")) ||
	    scheduled != before)))
		abort();
	json_decref(v);
	scheduled = before;
	return 0;
}
