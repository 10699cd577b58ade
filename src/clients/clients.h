/*
 * clients.h -- client connections (TCP and the UNIX socket): line
 * framing, who may ask (clients.c), replies in request order (also
 * across replies that wait for the journal), subscriptions.
 */
#ifndef VOLERY_CLIENTS_H
#define VOLERY_CLIENTS_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct client;
struct keyring;

#include "bounds.h"

/* Called for every complete request line (without its newline). */
typedef void clients_line_fn(struct client *, const char *, size_t);

struct clients_opts {
	int		 max_clients;	/* connections at once */
	int		 max_per_user;	/* of them from one local user, or one
					 * remote host */
	int		 idle_s;	/* drop a connection idle this long
					 * (nothing asked, nothing awaited); 0
					 * never */
	const uint8_t	*operator_key;	/* remote clients' AUTH; NULL: none */
	/* Other nodes' AUTH PEER (a cluster key): they may ask OUTPUT
	 * only.  NULL or empty: none. */
	const struct keyring *ring;
};

/* The TCP port (addr "host:port"); bound gets the address it got. */
int	clients_listen(struct event_base *, const char *addr,
	    clients_line_fn *, const struct clients_opts *, char *bound,
	    size_t boundlen, char *err, size_t errlen);
/* The UNIX socket at path (after clients_listen). */
int	clients_listen_unix(struct event_base *, const char *path, char *err,
	    size_t errlen);
void	clients_close_all(void);

/* Who connected, as listen.c accepted it. */
struct client_origin {
	int	local;			/* the UNIX socket, or loopback */
	int	loopback;
	int	pid;			/* its process (SO_PEERCRED), 0 unknown */
	char	addr[ADDR_MAXLEN + 1];
	char	user[USER_MAXLEN + 1];
	int64_t	uid;			/* user's, -1 unknown */
};
/* Serve fd (clients.c), or refuse it over the cap (closed): -1. */
int	clients_accept(struct event_base *, int fd,
	    const struct client_origin *);
/* What clients_listen was given: the line handler and who may ask. */
void	clients_serve(clients_line_fn *, const struct clients_opts *);
void	clients_drop_all(void);

/*
 * Reply with text (one or more lines, each ending in '\n').  A deferred
 * reply goes out after the next journal commit; any reply queued behind
 * a deferred one waits too, so replies keep the order of requests.
 */
void	client_reply(struct client *, int deferred, const char *text);
void	client_replyf(struct client *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	client_quit(struct client *);
const char *client_addr(const struct client *);
/* Who asks: a local user's login name (SO_PEERCRED, or the owner of a
 * loopback connection), "operator" for a remote operator, "" unknown. */
const char *client_user(struct client *);
/* That user's uid; -1 if unknown or the operator. */
int64_t	client_uid(struct client *);
/* The process on the other end of a local client (the UNIX socket's
 * peer, or the holder of a loopback connection, looked up once); -1 if
 * unknown. */
int	client_pid(struct client *, int *pid);
/* Who sends: one of these bits (requests.c's table says who may ask
 * what). */
#define CLIENT_LOCAL	0x1	/* the UNIX socket, or loopback */
#define CLIENT_OPERATOR	0x2	/* another host, with the operator key */
#define CLIENT_PEER	0x4	/* another node, with the cluster key */
int	client_who(const struct client *);
int	client_subscribe(struct client *, const char *uuid);
/*
 * CANCEL: the reply waits for the task's final end (confirmed by a
 * majority): CANCELLED if the cancel won, an ERROR naming the end that
 * did.  The client's next request is read once it is answered.
 */
void	client_await_end(struct client *, const char *uuid);

/*
 * A job answers the client (LOG, off the loop): its next requests wait
 * until client_unhold(); if the client goes first, cancel(job) is
 * called and the job must not touch the client again.
 */
void	client_hold(struct client *, void *job, void (*cancel)(void *));
void	client_unhold(struct client *);
/*
 * The same for a job that writes much (OUTPUT): client_write() bytes as
 * they are; drained(job) is called each time what is unsent falls to a
 * little, so the job writes on as the client reads.  A client leaving
 * more than CLIENT_OUTPUT_MAX unread is dropped (cancel(job) called).
 */
void	client_hold_writer(struct client *, void *job, void (*cancel)(void *),
	    void (*drained)(void *));
int	client_write(struct client *, const void *, size_t);
/* len bytes of the file fd from byte off (it closes fd) after what was
 * written. */
int	client_write_file(struct client *, int fd, int64_t off, int64_t len);
size_t	client_unsent(const struct client *);
/* fn(c, arg) once the replies c waits for are sent (at once if none);
 * fn(NULL, arg) if c is gone by then. */
void	client_after_replies(struct client *,
	    void (*fn)(struct client *, void *), void *arg);

/* Send line to every client subscribed to uuid. */
void	clients_notify(const char *uuid, const char *line);
/* Does any client follow (or await the cancel of) uuid? */
int	clients_subscribed(const char *uuid);

#endif
