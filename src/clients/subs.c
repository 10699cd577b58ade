/*
 * subs.c -- what clients follow (clients.h): SUBSCRIBE's tasks, and a
 * CANCEL's end, told as the node hears of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/bufferevent.h>
#include <event2/event.h>

#include "client.h"
#include "clients.h"
#include "task.h"
#include "wire.h"

int
client_follows(const struct client *c, const char *uuid)
{
	return uuidmap_get(&c->subs, uuid, NULL);
}

int
client_subscribe(struct client *c, const char *uuid)
{
	return uuidmap_put(&c->subs, uuid, 1);
}

void
client_await_end(struct client *c, const char *uuid)
{
	snprintf(c->awaiting, sizeof c->awaiting, "%s", uuid);
	if (c->bev != NULL)
		bufferevent_disable(c->bev, EV_READ);
}

/* A CANCEL waiting for uuid's end: answer it if line tells it final. */
static void
answer_cancel(struct client *c, const char *uuid, const char *line)
{
	struct wire_progress	p;
	enum task_state		st;
	char			copy[CLIENT_LINE_MAX + 1];

	snprintf(copy, sizeof copy, "%s", line);
	copy[strcspn(copy, "\n")] = '\0';
	if (wire_progress_parse(copy, &p) == -1 ||
	    task_state_parse(p.state, &st) == -1 || !task_is_final(st))
		return;
	c->awaiting[0] = '\0';
	if (st == TASK_CANCELLED)
		client_replyf_deferred(c, "CANCELLED %s\n", uuid);
	else
		client_replyf_deferred(c, "ERROR task %s ended %s before the "
		    "cancel\n", uuid, p.state);
	client_resume(c);
}

int
clients_subscribed(const char *uuid)
{
	struct client	*c;

	TAILQ_FOREACH(c, &clients, entry)
		if (strcmp(c->awaiting, uuid) == 0 || client_follows(c, uuid))
			return 1;
	return 0;
}

void
clients_notify(const char *uuid, const char *line)
{
	struct client	*c, *next;

	for (c = TAILQ_FIRST(&clients); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (strcmp(c->awaiting, uuid) == 0)
			answer_cancel(c, uuid, line);
		if (client_follows(c, uuid))
			client_reply(c, 0, line);
	}
}

