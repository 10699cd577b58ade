/*
 * fuzz_api.c -- libFuzzer: any bytes as the path and query of a GET of
 * the JSON API (HTTP and the client protocol's API request both hand
 * it to api_get), against a node with a few tasks.  Every answer is
 * JSON with a status, errors as {"error": why}; nothing crashes.  The
 * same bytes as GET /api/log's parameters: checked or refused.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api.h"
#include "node.h"
#include "task.h"
#include "taskdesc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct node *
fuzz_node(void)
{
	static struct taskdesc_set	 descs;
	struct node_config		 cfg;
	struct node_schedule_req	 req;
	struct api_self			 self = { "127.0.0.1:7600", 10, 2, 1024,
					    "linux" };
	struct node			*n;
	char				 uuid[40];
	int				 i;

	node_config_default(&cfg);
	snprintf(cfg.name, sizeof cfg.name, "fuzz");
	if ((n = node_new(&cfg, &descs)) == NULL)
		abort();
	memset(&req, 0, sizeof req);
	for (i = 0; i < 3; i++) {
		static const char *argv[] = { "true" };
		struct task_cmd cmd;
		char err[256];
		memset(&cmd, 0, sizeof cmd);
		cmd.argv = (char **)argv;
		cmd.argc = 1;
		cmd.cwd = "/";
		req.exec = "true";
		req.cmd = &cmd;
		snprintf(uuid, sizeof uuid, "00000000-0000-4000-8000-%012d",
		    i + 1);
		if (node_schedule(n, &req, uuid, 1700000000000LL + i, err,
		    sizeof err) == -1)
			abort();
	}
	api_init(n, &self);
	return n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct node	*n;
	json_t			*v;
	char			*uri;
	int			 code;

	if (n == NULL)
		n = fuzz_node();
	if (size > 4096 || (uri = malloc(size + 6)) == NULL)
		return 0;
	memcpy(uri, "/api/", 5);
	memcpy(uri + 5, data, size);
	uri[size + 5] = '\0';
	if (strlen(uri) != size + 5) {
		free(uri);
		return 0;	/* a NUL: no request holds one */
	}
	v = api_get(uri, &code);
	if (v == NULL || (code != 200 && !json_is_string(json_object_get(v,
	    "error"))) || (code != 200 && code != 400 && code != 404 &&
	    code != 500))
		abort();
	json_decref(v);
	/* GET /api/log's parameters: good ones fill the query, bad ones
	 * are a 400 with why. */
	{
		struct api_log_req	 r;

		v = api_log_request(uri, &r, &code);
		if ((v == NULL) != (code == 200) || (v != NULL && (code != 400 ||
		    !json_is_string(json_object_get(v, "error")))) ||
		    (v == NULL && (r.nlines < 1 || r.nlines >
		    API_LOG_LINES_MAX || (r.q.uuid != NULL &&
		    !task_uuid_valid(r.q.uuid)))))
			abort();
		json_decref(v);
	}
	free(uri);
	return 0;
}
