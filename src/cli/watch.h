/*
 * watch.h -- follow tasks to their end on a node (volery watch, submit
 * --watch): live bars on a terminal, plain lines otherwise, then a
 * summary.  Returns 0 if every task Terminated, 1 otherwise.
 */
#ifndef VOLERY_WATCH_H
#define VOLERY_WATCH_H

#include <stdio.h>

#include "bounds.h"
#include "wire.h"

struct conn;

struct watched {
	char			label[NAME_MAXLEN + 1];	/* workflow id, or "" */
	char			exec[NAME_MAXLEN + 1];
	struct wire_progress	p;	/* its uuid, its array (p.array, if
					 * any), and its last PROGRESS */
	double			ends_at;	/* expected, monotonic s; -1 */
	int64_t			deadline_ms;	/* to end by (epoch ms); 0 */
	/* The tasks of one array show as one bar (watch_run sets these):
	 * the first of them leads, next links the rest. */
	int			lead;		/* index of its array's first */
	int			next;		/* next of its array, or -1 */
	/* Its last plain line but the time: a PROGRESS that changes
	 * nothing it shows (a new checkpoint) prints none. */
	uint64_t		shown;
};

/* How watch shows the tasks: a plain line per change, bars redrawn
 * in place (a terminal), or a JSON object per change (JSON Lines). */
#define WATCH_PLAIN	0
#define WATCH_BARS	1
#define WATCH_JSON	2

/* Subscribe to n tasks on c and follow them as mode says; bars fit the
 * terminal's width and are drawn again when it is resized.  title names
 * what they are ("workflow FILE"); NULL: "array NAME[a-b]" for one
 * array's tasks, else nothing. */
int	watch_run(struct conn *c, struct watched *v, int n, FILE *out,
	    int mode, const char *title);
/* Fill exec names from TASKS for tasks that lack one; -1 if unknown. */
int	watch_names(struct conn *c, struct watched *v, int n, char *err,
	    size_t errlen);
/* Apply one PROGRESS line to the task it names; its index or -1. */
int	watch_progress(struct watched *v, int n, const char *line);

#endif
