/*
 * requests.c -- dispatch a client's request line from one table
 * (requests.h).  The table says who may send each request; handlers do
 * not check it again.  After a request that changes the node, what the
 * core asked for is carried out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "actions.h"
#include "clients.h"
#include "idle.h"
#include "log.h"
#include "reqs.h"
#include "requests.h"
#include "service.h"
#include "sockowner.h"
#include "wire.h"

static req_fn	req_idle, req_sleep, req_help, req_quit;

#define ANYONE		(CLIENT_LOCAL | CLIENT_OPERATOR)
#define CHANGES		0x1	/* the core's actions follow */
#define MINE		0x2	/* the task it names is the asker's (or
				 * the asker an admin): service_may_touch */
#define NOT_FROM_RUN	0x4	/* refused from a process of one of our
				 * runs: a task never decides for its user */
#define PRESENT		0x8	/* root, the node's user, or a user at
				 * this host's console or display */

static const struct request {
	enum client_cmd	 cmd;
	const char	*name;
	int		 who;		/* CLIENT_* bits */
	int		 flags;
	req_fn		*fn;
} requests[] = {
	{ CMD_SCHEDULE,	"SCHEDULE",	ANYONE,	CHANGES, req_schedule },
	{ CMD_RUN,	"RUN",		ANYONE,	CHANGES, req_schedule },
	{ CMD_CANCEL,	"CANCEL",	ANYONE,	CHANGES | MINE | NOT_FROM_RUN,
	    req_cancel },
	{ CMD_HOLD,	"HOLD",		ANYONE,	CHANGES | MINE | NOT_FROM_RUN,
	    req_hold },
	{ CMD_RELEASE,	"RELEASE",	ANYONE,	CHANGES | MINE | NOT_FROM_RUN,
	    req_hold },
	{ CMD_PRIO,	"PRIO",		ANYONE,	CHANGES | MINE | NOT_FROM_RUN,
	    req_hold },
	{ CMD_SUBSCRIBE, "SUBSCRIBE",	ANYONE,	0, req_subscribe },
	{ CMD_TASKS,	"TASKS",	ANYONE,	0, req_tasks },
	{ CMD_HISTORY,	"HISTORY",	ANYONE,	0, req_tasks },
	{ CMD_ACCOUNT,	"ACCOUNT",	ANYONE,	0, req_account },
	{ CMD_API,	"API",		ANYONE,	0, req_api },
	{ CMD_NODES,	"NODES",	ANYONE,	0, req_nodes },
	{ CMD_LOG,	"LOG",		ANYONE,	MINE, req_log },
	/* Other nodes ask OUTPUT of a task that ran here, nothing else:
	 * their client's node checked whose it is. */
	{ CMD_OUTPUT,	"OUTPUT",	ANYONE | CLIENT_PEER, MINE, req_output },
	/* And a copy of a checkpoint kept here (the handler checks that a
	 * local client is a node of this host's user). */
	{ CMD_CKPT,	"CKPT",		CLIENT_LOCAL | CLIENT_PEER, NOT_FROM_RUN,
	    req_ckpt },
	/* And an input file of a task this node took (req-file.c). */
	{ CMD_FILE,	"FILE",		CLIENT_LOCAL | CLIENT_PEER, NOT_FROM_RUN,
	    req_file },
	/* The screensaver hook: this host's own say. */
	{ CMD_IDLE,	"IDLE",		CLIENT_LOCAL,
	    CHANGES | NOT_FROM_RUN | PRESENT, req_idle },
	/* The sleep hook: the host is about to suspend, or is back. */
	{ CMD_SLEEP,	"SLEEP",	CLIENT_LOCAL,
	    CHANGES | NOT_FROM_RUN | PRESENT, req_sleep },
	/* A revocation proves itself (the admin's signature): anyone may
	 * hand one in. */
	{ CMD_PEERKEY,	"PEERKEY",	ANYONE,	0, req_peerkey },
	{ CMD_REVOKE,	"REVOKE",	ANYONE,	0, req_revoke },
	/* An admin ends this node's quarantine (checked by the handler). */
	{ CMD_CLEAR,	"CLEAR",	ANYONE,	CHANGES | NOT_FROM_RUN,
	    req_clear },
	{ CMD_HELP,	"HELP",		ANYONE,	0, req_help },
	{ CMD_QUIT,	"QUIT",		ANYONE | CLIENT_PEER, 0, req_quit },
};

static const struct requests_env	*env;

const struct requests_env *
req_env(void)
{
	return env;
}

void
requests_init(const struct requests_env *e)
{
	env = e;
	req_task_init();
}

static const struct request *
request_find(enum client_cmd cmd)
{
	size_t	i;

	for (i = 0; i < sizeof requests / sizeof requests[0]; i++)
		if (requests[i].cmd == cmd)
			return &requests[i];
	return NULL;
}

/* Is c a process of one of this node's runs (service.h)? */
static int
from_a_run(struct client *c)
{
	int	pid;

	return client_pid(c, &pid) == 0 && service_pid_in_run(pid);
}

/* Root, the node's own user, or someone logged in at this host. */
static int
present(const char *user)
{
	char	self[USER_MAXLEN + 1];

	sock_user_name(geteuid(), self, sizeof self);
	return strcmp(user, "root") == 0 || strcmp(user, self) == 0 ||
	    idle_user_present(user);
}

/* Why who may not send r (a reply line). */
static void
refuse(struct client *c, const struct request *r)
{
	if (client_who(c) == CLIENT_PEER)
		client_reply(c, 0, "ERROR a node may only ask OUTPUT or "
		    "CKPT\n");
	else
		client_replyf(c, "ERROR %s is accepted from this host only\n",
		    r->name);
}

void
requests_line(struct client *c, const char *line, size_t len)
{
	const struct request	*r;
	struct client_req	*req;
	char			 err[1024];

	if ((req = malloc(sizeof *req)) == NULL) {
		client_reply(c, 0, "ERROR out of memory\n");
		return;
	}
	if (wire_client_parse(line, len, req, err, sizeof err) == -1) {
		/* A node is told what it may ask, not how to ask the rest. */
		if (client_who(c) == CLIENT_PEER &&
		    strncasecmp(line, "OUTPUT ", 7) != 0 &&
		    strncasecmp(line, "CKPT ", 5) != 0)
			client_reply(c, 0, "ERROR a node may only ask "
			    "OUTPUT\n");
		else
			client_replyf(c, "ERROR %s\n", err);
	} else if ((r = request_find(req->cmd)) == NULL)
		client_replyf(c, "ERROR internal: no handler\n");
	else if ((r->who & client_who(c)) == 0)
		refuse(c, r);
	else if ((r->flags & NOT_FROM_RUN) && from_a_run(c))
		client_replyf(c, "ERROR %s is not accepted from a task's run: "
		    "a task does not decide for its node or other tasks\n",
		    r->name);
	else if ((r->flags & PRESENT) && !present(client_user(c)))
		client_replyf(c, "ERROR %s is accepted from root, the node's "
		    "user and users logged in at this host only\n", r->name);
	else if ((r->flags & MINE) && req->nuuid > 0 &&
	    client_who(c) != CLIENT_PEER && service_may_touch(client_user(c),
	    req->uuid[0], err, sizeof err) == -1)
		client_replyf(c, "ERROR %s\n", err);
	else {
		r->fn(c, req);
		if (r->flags & CHANGES)
			actions_carry_out();
	}
	free(req);
}

static void
req_idle(struct client *c, const struct client_req *req)
{
	log_info("screensaver hook: IDLE %s from %s",
	    req->idle == VOL_FORCE_ON ? "on" : req->idle == VOL_FORCE_OFF ?
	    "off" : "auto", client_addr(c));
	idle_force(req->idle);
	client_reply(c, 0, "OK\n");
}

static void
req_sleep(struct client *c, const struct client_req *req)
{
	log_info("sleep hook: SLEEP %s from %s", req->sleep ? "now" : "over",
	    client_addr(c));
	idle_sleep(req->sleep);
	client_reply(c, 0, "OK\n");
}

static void
req_help(struct client *c, const struct client_req *req)
{
	char	help[4096];

	if (wire_client_help(help, sizeof help) == -1)
		client_replyf(c, "ERROR help does not fit\n");
	else
		client_reply(c, 0, help);
}

static void
req_quit(struct client *c, const struct client_req *req)
{
	client_reply(c, 0, "BYE\n");
	client_quit(c);
}
