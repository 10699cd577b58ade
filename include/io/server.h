/*
 * server.h -- `volery serve`: the libevent shell around the core.
 */
#ifndef VOLERY_SERVER_H
#define VOLERY_SERVER_H

#include <stddef.h>

struct config;
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

#endif
