/*
 * logjob.h -- LOG off the event loop: a thread searches the log and
 * streams its lines back through a pipe, so a big log or a costly
 * expression never holds up the node's heartbeats.
 */
#ifndef VOLERY_LOGJOB_H
#define VOLERY_LOGJOB_H

#include <stddef.h>
#include <stdio.h>

struct event_base;
struct log_search;
struct logjob;

#define LOGJOB_MAX 4	/* searches at once; more wait their turn */

/* A matching line (without newline), or the end (line NULL). */
typedef void logjob_fn(const char *line, size_t len, void *arg);

/*
 * Search f with s for its last nlines matches (0: all), in a thread;
 * out gets each line in the loop, then NULL.  s and f belong to the job
 * from now on, even when it fails to start (NULL, errno set).
 */
struct logjob *logjob_start(struct event_base *, struct log_search *s,
	    FILE *f, int nlines, logjob_fn *out, void *arg);
/* Stop: the thread notices at its next line and ends; out is not called
 * again. */
void	logjob_cancel(struct logjob *);
int	logjob_running(void);

#endif
