/*
 * progress.c -- the PROGRESS line a subscriber receives (DESIGN.md
 * section 3):
 *
 *   PROGRESS <uuid> <percent> <state> [node=<name>] [attempt=<n>]
 *       [outputs=<id>,...] [reason=<text to the end of the line>]
 */
#include <stdio.h>

#include "wire.h"

int
wire_progress_line(const struct task *t, char *buf, size_t size)
{
	size_t	off;
	int	i;

	off = snprintf(buf, size, "PROGRESS %s %d %s", t->uuid,
	    t->state == TASK_TERMINATED ? 100 : t->progress,
	    task_shown_state(t));
	if (t->running_on[0] != '\0' && off < size)
		off += snprintf(buf + off, size - off, " node=%s",
		    t->running_on);
	if (t->attempts > 0 && off < size)
		off += snprintf(buf + off, size - off, " attempt=%d",
		    t->attempts);
	for (i = 0; i < t->noutputs && off < size; i++)
		off += snprintf(buf + off, size - off, "%s%s",
		    i == 0 ? " outputs=" : ",", t->outputs[i]);
	if (t->reason[0] != '\0' && off < size)
		off += snprintf(buf + off, size - off, " reason=%s",
		    t->reason);
	if (off + 2 > size)
		off = size - 2;
	buf[off++] = '\n';
	buf[off] = '\0';
	return (int)off;
}

