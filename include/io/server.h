/*
 * server.h -- `volery serve`: the libevent shell around the core.
 */
#ifndef VOLERY_SERVER_H
#define VOLERY_SERVER_H

struct config;

int	server_run(const struct config *, int echo);

#endif
