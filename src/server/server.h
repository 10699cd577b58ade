/*
 * server.h -- `volery serve`: the libevent loop around the core.  The
 * loop, its sockets, signals and start-up are server.c's; carrying out
 * the core's actions is actions.c's; what clients and the web ask goes
 * through service.c.
 */
#ifndef VOLERY_SERVER_H
#define VOLERY_SERVER_H

struct config;

int	server_run(const struct config *, int echo);

#endif
