/*
 * server.h -- `volery serve`: the libevent shell around the core.
 */
#ifndef VOLERY_SERVER_H
#define VOLERY_SERVER_H

#include <stddef.h>

#include "logjob.h"

struct config;
struct log_query;
struct taskdesc_set;

int	server_run(const struct config *, int echo);

/* For the HTTP side (webpost.c), in the loop: schedule a SCHEDULE or
 * RUN line as asked by client (an address) and user; its uuid, or -1
 * with why.  server_sync() makes what was scheduled durable (the
 * journal on disk) before the answer. */
int	server_schedule_line(const char *line, const char *client,
	    const char *user, char *uuid, char *err, size_t errlen);
int	server_cancel(const char *uuid, char *err, size_t errlen);
void	server_sync(void);
const struct taskdesc_set *server_descs(void);
/* Search the recent log for q, since and until as people write times
 * (NULL: no bound), its last nlines (0: all), in a thread: LOG and GET
 * /api/log.  The job, or NULL with why and *status (400 a bad time or
 * expression, 503 too many searches, 500 the node's own trouble). */
struct logjob *server_log_search(struct log_query *q, const char *since,
	    const char *until, int nlines, logjob_fn *out, void *arg,
	    int *status, char *err, size_t errlen);

#endif
