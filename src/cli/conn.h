/*
 * conn.h -- the command line's side of the client protocol (DESIGN.md
 * section 3): one blocking TCP connection to a node, lines in and out.
 */
#ifndef VOLERY_CONN_H
#define VOLERY_CONN_H

#include <signal.h>
#include <stddef.h>

#include "bounds.h"

#define CONN_DEFAULT_HOST "127.0.0.1:7600"
#define CONN_SYSTEM_SOCKET "/run/volery/volery.sock"
/* The install's (build/paths.h, from SYSCONFDIR). */
#ifndef VOLERY_SYSCONF_DIR
#define VOLERY_SYSCONF_DIR "/etc/volery"
#endif
#define CONN_OPERATOR_KEY VOLERY_SYSCONF_DIR "/operator.key"

struct conn {
	int	 fd;
	char	 where[2 * ADDR_MAXLEN + 16];	/* host:port, for messages */
	char	 buf[CLIENT_LINE_MAX * 4];
	size_t	 len;
	int	 bad;	/* conn_open: the host is not one */
	int	 lost;	/* unreachable, closed, or silent past a deadline */
	/* When set and a signal sets *interrupt, conn_line returns 0 at
	 * once (watch redraws on SIGWINCH). */
	volatile sig_atomic_t *interrupt;
};

/* host: "host[:port]", "[IPv6]:port", a node's name (its address from
 * the local node's NODES), or NULL for $VOLERY_HOST, else the local
 * node's UNIX socket, else the default.  Connecting has a few seconds. */
int	conn_open(struct conn *, const char *host, char *err, size_t errlen);
void	conn_close(struct conn *);
/* 2 if a host given was not one, 3 if a connection was lost (or never
 * made), else 0: what a command that failed exits with. */
int	conn_failure(void);
int	conn_send(struct conn *, const char *line, char *err, size_t errlen);
/* The next line without its newline; timeout_ms < 0 waits for ever.
 * Returns 1 with a line, 0 on timeout, -1 on error or end (err says). */
int	conn_line(struct conn *, char *line, size_t size, int timeout_ms,
	    char *err, size_t errlen);
/* Exactly n bytes (the payload of a DATA line); 1, 0 on timeout, -1 on
 * error or end. */
int	conn_read(struct conn *, void *buf, size_t n, int timeout_ms,
	    char *err, size_t errlen);
/* Send a request, return its first reply line that is not a PROGRESS
 * line; -1 (err) if the node is unreachable or answers ERROR. */
int	conn_ask(struct conn *, const char *request, char *reply,
	    size_t size, char *err, size_t errlen);
/* The next reply line that is not a PROGRESS line, to a request sent
 * (ERROR lines too); -1 (err) if none comes. */
int	conn_reply(struct conn *, char *reply, size_t size, char *err,
	    size_t errlen);

#endif
