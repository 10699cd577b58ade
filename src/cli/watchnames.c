/*
 * watchnames.c -- the names of the tasks volery watch follows (watch.h):
 * from the node's TASK lines, for the map, else for the history.
 */
#include <stdio.h>
#include <string.h>

#include "bounds.h"
#include "conn.h"
#include "reply.h"
#include "watch.h"

/* Fill the names of v from the TASK lines answering request. */
static int
names_from(struct conn *c, const char *request, struct watched *v, int n,
    char *err, size_t errlen)
{
	struct reply_task	t;
	char			line[CLIENT_LINE_MAX + 1];
	int			rc, i;

	if (conn_send(c, request, err, errlen) == -1)
		return -1;
	for (;;) {
		rc = conn_line(c, line, sizeof line, 10000, err, errlen);
		if (rc <= 0) {
			if (rc == 0)
				snprintf(err, errlen, "no reply to %.*s",
				    (int)strcspn(request, "\n"), request);
			return -1;
		}
		if (strcmp(line, ".") == 0)
			return 0;
		if (strncmp(line, "ERROR", 5) == 0) {
			snprintf(err, errlen, "%s", line);
			return -1;
		}
		if (wire_reply_task_parse(line, &t) == -1)
			continue;
		for (i = 0; i < n; i++) {
			if (strcmp(v[i].p.uuid, t.uuid) != 0)
				continue;
			snprintf(v[i].exec, sizeof v[i].exec, "%s", t.exec);
			snprintf(v[i].p.array, sizeof v[i].p.array, "%s",
			    t.array);
			v[i].p.array_index = t.array_index;
			v[i].deadline_ms = t.deadline_ms;
		}
	}
}

/* The names of the tasks: from the map, else from the history (a task
 * that finished longer ago than the retention period). */
int
watch_names(struct conn *c, struct watched *v, int n, char *err,
    size_t errlen)
{
	int	i, missing = 0;

	if (names_from(c, "TASKS\n", v, n, err, errlen) == -1)
		return -1;
	for (i = 0; i < n; i++)
		missing += v[i].exec[0] == '\0';
	if (missing > 0 &&
	    names_from(c, "HISTORY\n", v, n, err, errlen) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (v[i].exec[0] == '\0') {
			snprintf(err, errlen, "unknown task %s", v[i].p.uuid);
			return -1;
		}
	return 0;
}
