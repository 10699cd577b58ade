/*
 * client.h -- a client connection as the files of src/clients see it
 * (clients.c its life and replies, subs.c its subscriptions); the rest
 * of the node sees clients.h.
 */
#ifndef VOLERY_CLIENT_H
#define VOLERY_CLIENT_H

#include <sys/queue.h>

#include "bounds.h"
#include "seal.h"
#include "uuidmap.h"

struct bufferevent;
struct event;

struct client {
	struct bufferevent	*bev;		/* NULL once gone */
	char			 addr[ADDR_MAXLEN + 1];
	int			 loopback;
	int			 local;		/* socket or loopback */
	int			 authed;	/* AUTH_*: a remote operator,
						 * or a peer node */
	int			 peer_challenge;	/* AUTH PEER asked */
	char			 user[USER_MAXLEN + 1];	/* "" unknown */
	int64_t			 uid;		/* its uid, -1 unknown */
	int			 pid;		/* 0: not yet looked up; -1
						 * not found */
	char			 challenge[AUTH_HEX_LEN + 1];
	int			 discarding;	/* inside an over-long line */
	int			 quitting;
	int			 stalled;	/* a wrong AUTH answer: not
						 * read for a while */
	struct event		*stall_ev;	/* its end */
	int			 refs;		/* deferred replies held */
	int			 pending;	/* replies waiting to go out */
	char			 awaiting[UUID_STRLEN + 1];	/* CANCEL */
	void			*job;		/* answering (LOG), or NULL */
	void			(*job_cancel)(void *);
	void			(*job_drained)(void *);	/* room again */
	struct uuidmap		 subs;		/* SUBSCRIBEd tasks: a look-up
						 * per change, however many */
	TAILQ_ENTRY(client)	 entry;
};

TAILQ_HEAD(client_list, client);
extern struct client_list	clients;

/* A durable reply (after the journal commit), formatted. */
void	client_replyf_deferred(struct client *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* Read requests again after an answer that made them wait. */
void	client_resume(struct client *);
/* Does c follow uuid? */
int	client_follows(const struct client *, const char *uuid);

#endif
