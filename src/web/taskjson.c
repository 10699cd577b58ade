/*
 * taskjson.c -- a task as JSON (taskjson.h).  Field names are the API's
 * (volery-api(7)); a value not known yet is null, never left out, so a
 * script reads every field of every task the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "logsearch.h"
#include "task.h"
#include "taskjson.h"

/* A time or a cost in ms (or KiB), or null when not known. */
static json_t *
maybe(int64_t v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

static json_t *
text(const char *s)
{
	return s != NULL && s[0] != '\0' ? json_text(s) : json_null();
}

static int64_t
span(int64_t from, int64_t to)
{
	return from >= 0 && to >= from ? to - from : -1;
}

static json_t *
inputs_json(const struct task *t)
{
	json_t	*v = json_array();
	int	 i;

	for (i = 0; i < t->ninputs; i++)
		json_array_append_new(v, json_pack("{s:s, s:i, s:o}", "task",
		    t->inputs[i].from, "output", t->inputs[i].nth, "dataset",
		    text(t->inputs[i].dataset)));
	return v;
}

static json_t *
strings_json(char *const *s, int n)
{
	json_t	*v = json_array();
	int	 i;

	for (i = 0; i < n; i++)
		json_array_append_new(v, json_text(s[i]));
	return v;
}

/* Its failed attempts, oldest first: [{"node", "exit_code",
 * "exit_signal"}], each exit null where none was measured. */
static json_t *
tries_json(const struct task *t)
{
	json_t		*v = json_array();
	const char	*p = t->tries;
	char		 node[NAME_MAXLEN + 1];
	int		 status;

	while (task_tries_next(&p, node, &status) == 0)
		json_array_append_new(v, json_pack("{s:s, s:o, s:o}", "node",
		    node, "exit_code", status >= 0 && status < 256 ?
		    json_integer(status) : json_null(), "exit_signal",
		    status >= 256 ? json_integer(status - 256) : json_null()));
	return v;
}

/* Its newest checkpoint kept by the pool: {"seq", "bytes", "made_ms",
 * "file", "kept_by": [node, ...]} (its maker first), or null. */
static json_t *
ckpt_json(const struct task *t)
{
	struct task_ckpt	 c;
	json_t			*at;
	int			 i;

	if (t->ckpt == NULL || !task_ckpt_parse(t->ckpt, &c) ||
	    (at = json_array()) == NULL)
		return json_null();
	for (i = 0; i < c.nholders; i++)
		json_array_append_new(at, json_string(c.holders[i]));
	return json_pack("{s:I, s:I, s:I, s:s, s:o}", "seq", (json_int_t)c.seq,
	    "bytes", (json_int_t)c.bytes, "made_ms", (json_int_t)c.made_ms,
	    "file", c.file, "kept_by", at);
}

json_t *
task_json(const struct task *t)
{
	json_t	*o = json_object();

	if (o == NULL)
		return NULL;
	json_object_set_new(o, "uuid", json_string(t->uuid));
	json_object_set_new(o, "name", json_text(t->exec));
	json_object_set_new(o, "state", json_string(task_state_name(t->state)));
	json_object_set_new(o, "shown_state", json_string(
	    task_shown_state(t)));
	json_object_set_new(o, "progress", json_integer(t->state ==
	    TASK_TERMINATED ? 100 : t->progress));
	json_object_set_new(o, "priority", json_string(task_prio_name(
	    t->prio)));
	json_object_set_new(o, "user", text(t->user));
	json_object_set_new(o, "uid", t->uid >= 0 ? json_integer(t->uid) :
	    json_null());
	json_object_set_new(o, "node", text(t->running_on));
	json_object_set_new(o, "scheduler", text(t->scheduled_by));
	json_object_set_new(o, "workflow", json_string(task_workflow(t)));
	json_object_set_new(o, "array", text(t->array));
	json_object_set_new(o, "array_index", t->array[0] != '\0' ?
	    json_integer(t->array_index) : json_null());
	/* --verify: how many replicas must agree; a replica's task, index
	 * (from 1) and the digest of its result. */
	json_object_set_new(o, "verify", t->verify > 0 ?
	    json_integer(t->verify) : json_null());
	json_object_set_new(o, "replica_of", text(t->replica_of));
	json_object_set_new(o, "replica", task_is_replica(t) ?
	    json_integer(task_replica_number(t)) : json_null());
	json_object_set_new(o, "digest", text(t->digest));
	json_object_set_new(o, "path", text(t->path));
	json_object_set_new(o, "params", text(t->params));
	json_object_set_new(o, "inputs", inputs_json(t));
	json_object_set_new(o, "outputs", strings_json(t->outputs,
	    t->noutputs));
	json_object_set_new(o, "command", t->cmd != NULL ?
	    strings_json(t->cmd->argv, t->cmd->argc) : json_null());
	json_object_set_new(o, "cores", json_integer(t->req_cores > 0 ?
	    t->req_cores : 1));
	json_object_set_new(o, "memory_mb", json_integer(t->req_memory_mb));
	json_object_set_new(o, "requires", text(t->req_tags));
	json_object_set_new(o, "submit_ms", maybe(t->submit_ms));
	json_object_set_new(o, "ready_ms", maybe(t->ready_ms));
	json_object_set_new(o, "start_ms", maybe(t->start_ms));
	json_object_set_new(o, "end_ms", maybe(t->end_ms));
	json_object_set_new(o, "wait_ms", maybe(span(t->ready_ms,
	    t->start_ms)));
	json_object_set_new(o, "elapsed_ms", maybe(span(t->start_ms,
	    t->end_ms)));
	json_object_set_new(o, "attempts", json_integer(t->attempts));
	json_object_set_new(o, "failures", json_integer(t->failures));
	json_object_set_new(o, "failed_attempts", tries_json(t));
	json_object_set_new(o, "checkpoint", ckpt_json(t));
	json_object_set_new(o, "deadline_ms", t->deadline_ms > 0 ?
	    json_integer(t->deadline_ms) : json_null());
	json_object_set_new(o, "estimate_given_ms", t->est_ms > 0 ?
	    json_integer(t->est_ms) : json_null());
	json_object_set_new(o, "retry_ms", t->retry_ms > 0 ?
	    json_integer(t->retry_ms) : json_null());
	json_object_set_new(o, "exit_code", t->exit_status >= 0 &&
	    t->exit_status < 256 ? json_integer(t->exit_status) :
	    json_null());
	json_object_set_new(o, "exit_signal", t->exit_status >= 256 ?
	    json_integer(t->exit_status - 256) : json_null());
	json_object_set_new(o, "cpu_ms", maybe(t->cpu_ms));
	json_object_set_new(o, "maxrss_kib", maybe(t->maxrss_kib));
	json_object_set_new(o, "reason", text(t->reason));
	json_object_set_new(o, "confirmed", json_boolean(t->confirmed));
	return o;
}

json_t *
json_textn(const char *s, size_t len)
{
	json_t	*v = json_stringn(s, len);
	char	*copy;
	size_t	 i;

	if (v != NULL || (copy = malloc(len + 1)) == NULL)
		return v;
	for (i = 0; i < len; i++)
		copy[i] = (unsigned char)s[i] > 127 || s[i] == '\0' ? '?' : s[i];
	v = json_stringn(copy, len);
	free(copy);
	return v;
}

json_t *
json_text(const char *s)
{
	return json_textn(s, strlen(s));
}

json_t *
log_line_json(const char *line, size_t len)
{
	char	level[16];
	int	off = 0;

	if (len > LOG_STAMP_LEN + 5 && line[0] == '[' &&
	    sscanf(line + LOG_STAMP_LEN + 1, "]: <%15[a-z]> %n", level,
	    &off) == 1 && off > 0 && (size_t)(LOG_STAMP_LEN + 1 + off) <= len)
		return json_pack("{s:o, s:s, s:o}", "time", json_textn(line + 1,
		    LOG_STAMP_LEN), "level", level, "message", json_textn(line +
		    LOG_STAMP_LEN + 1 + off, len - LOG_STAMP_LEN - 1 - off));
	return json_pack("{s:n, s:n, s:o}", "time", "level", "message",
	    json_textn(line, len));
}
