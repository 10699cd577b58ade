/*
 * account.h -- ACCOUNT (volery history): what the finished tasks did and
 * cost, those still in the map and those retired to the history file,
 * as sacct tells jobs.
 */
#ifndef VOLERY_ACCOUNT_H
#define VOLERY_ACCOUNT_H

struct client;
struct client_req;
struct node;
struct task;

/* Does the finished task t pass req's filters? */
int	account_match(const struct task *t, const struct client_req *req);
/* Answer req: a "RECORD <record>" line for each task that passes, in
 * submit order, then ".". */
void	account_reply(struct client *, struct node *,
	    const struct client_req *);

#endif
