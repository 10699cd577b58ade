/*
 * taskjson.h -- a task as JSON (jansson): what `volery history --json`,
 * `volery tasks --json` and the HTTP API say of it, from one encoder.
 */
#ifndef VOLERY_TASKJSON_H
#define VOLERY_TASKJSON_H

#include <stddef.h>

#include <jansson.h>

struct task;

/* Every field of t: times in ms since the epoch (null when not yet),
 * its inputs and outputs, its command, what its run cost.  A new
 * reference, or NULL out of memory. */
json_t	*task_json(const struct task *t);
/* s as a JSON string even when it is not UTF-8 (a name cut short in a
 * fixed buffer, a program's argument): its bytes over 127 become '?'
 * then.  NULL only out of memory. */
json_t	*json_text(const char *s);
json_t	*json_textn(const char *s, size_t len);
/* A line of the node's log, "[YYYY-MM-DD HH:MM:SS]: <level> message",
 * as {"time", "level", "message"} (time and level null if it is not
 * one): `volery log --json` and GET /api/log. */
json_t	*log_line_json(const char *line, size_t len);

#endif
