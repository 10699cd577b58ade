/*
 * req-task.c -- the requests that make and follow tasks: SCHEDULE and
 * RUN (answered once the journal holds the task), CANCEL (answered with
 * the end a majority confirms), SUBSCRIBE (where each task stands, then
 * its changes, which this file hears from the node: notify.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients.h"
#include "clock.h"
#include "history.h"
#include "node.h"
#include "notify.h"
#include "reqs.h"
#include "requests.h"
#include "service.h"
#include "task.h"
#include "wire.h"

void
req_progress_extras(char *line, size_t size, const struct task *t)
{
	struct node	*core = req_env()->core;
	int64_t		 now = clock_node_ms(), end;
	char		 why[REASON_MAXLEN + 1];
	size_t		 eol;

	if (t != NULL && !task_is_final(t->state) &&
	    (end = node_task_eta(core, t, now)) >= 0)
		(void)wire_progress_add_eta(line, size, end - now);
	if (t == NULL || (t->state != TASK_READY && !task_is_verified(t)) ||
	    task_is_final(t->state) || strstr(line, " reason=") != NULL)
		return;
	node_task_waiting(core, t, why, sizeof why);
	eol = strcspn(line, "\n");
	if (why[0] != '\0' && eol + strlen(why) + 10 < size)
		snprintf(line + eol, size - eol, " reason=%s\n", why);
}

/* A task changed: to the clients that follow it. */
static void
task_changed(const char *uuid, const char *snapshot)
{
	char	line[CLIENT_LINE_MAX + 64];

	if (!clients_subscribed(uuid))
		return;
	/* An end told final must be a majority's (node.h). */
	if (!service_certify(uuid))
		return;
	snprintf(line, sizeof line, "%s", snapshot);
	req_progress_extras(line, sizeof line, node_find(req_env()->core,
	    uuid));
	clients_notify(uuid, line);
}

static const struct notify_hook	subscribers = { task_changed, NULL };

void
req_task_init(void)
{
	(void)notify_add(&subscribers);
}

void
req_schedule(struct client *c, const struct client_req *req)
{
	char		 uuid[UUID_STRLEN + 1], err[256], reply[96];

	if (service_schedule(req, client_addr(c), client_user(c),
	    client_uid(c), uuid, err,
	    sizeof err) == -1) {
		client_replyf(c, "ERROR %s\n", err);
		return;
	}
	/* With a deadline: when it should end, for the submitter to judge
	 * (-1: nothing to tell it from). */
	if (req->deadline_ms > 0)
		snprintf(reply, sizeof reply, "SCHEDULED %s forecast=%" PRId64
		    " deadline=%" PRId64 "\n", uuid, service_forecast(uuid),
		    req->deadline_ms);
	else
		snprintf(reply, sizeof reply, "SCHEDULED %s\n", uuid);
	client_reply(c, 1, reply);	/* once the journal has it */
}

struct awaiting {
	struct client	*c;
	const char	*uuid;
};

static void
await_end(void *arg)
{
	struct awaiting	*a = arg;

	client_await_end(a->c, a->uuid);
}

void
req_cancel(struct client *c, const struct client_req *req)
{
	struct awaiting	a = { c, req->uuid[0] };
	char		err[256];

	/* The reply waits for the end a majority confirms: the cancel's,
	 * or a result's that won the race (clients.c answers). */
	if (service_cancel(req->uuid[0], await_end, &a, err,
	    sizeof err) == -1)
		client_replyf(c, "ERROR %s\n", err);
}

/* HOLD, RELEASE, PRIO: OK once the journal has the change. */
void
req_hold(struct client *c, const struct client_req *req)
{
	char	err[256], reply[64];
	int	rc;

	rc = req->cmd == CMD_PRIO ? service_prio(req->uuid[0], req->prio,
	    err, sizeof err) : service_hold(req->uuid[0], req->cmd ==
	    CMD_HOLD, err, sizeof err);
	if (rc == -1) {
		client_replyf(c, "ERROR %s\n", err);
		return;
	}
	snprintf(reply, sizeof reply, "OK %s\n", req->uuid[0]);
	client_reply(c, 1, reply);
}

/*
 * SUBSCRIBE: where each task stands now, then its changes.  A task that
 * left the map for the history is told as it ended there.
 */
void
req_subscribe(struct client *c, const struct client_req *req)
{
	const struct task	*t[SUBSCRIBE_MAX];
	struct task		**hist = NULL;
	char			  line[CLIENT_LINE_MAX + 512];
	size_t			  off, nhist = 0;
	int			  i, read_history = 0;

	for (i = 0; i < req->nuuid; i++) {
		if ((t[i] = node_find(req_env()->core, req->uuid[i])) != NULL)
			continue;
		if (!read_history) {
			hist = history_read(&nhist);
			read_history = 1;
		}
		if ((t[i] = history_find(hist, nhist, req->uuid[i])) ==
		    NULL) {
			client_replyf(c, "ERROR unknown task %s\n",
			    req->uuid[i]);
			goto done;
		}
	}
	off = snprintf(line, sizeof line, "SUBSCRIBED");
	for (i = 0; i < req->nuuid; i++) {
		if (client_subscribe(c, req->uuid[i]) == -1) {
			client_replyf(c, "ERROR out of memory\n");
			goto done;
		}
		if (off + UUID_STRLEN + 3 < sizeof line)
			off += snprintf(line + off, sizeof line - off, " %s",
			    req->uuid[i]);
	}
	snprintf(line + off, sizeof line - off, "\n");
	client_reply(c, 0, line);
	/* Where each task stands now, so a late subscriber misses nothing. */
	for (i = 0; i < req->nuuid; i++) {
		(void)service_certify(req->uuid[i]);
		wire_progress_line(t[i], line, sizeof line);
		req_progress_extras(line, sizeof line, t[i]);
		client_reply(c, 0, line);
	}
done:
	history_free(hist, nhist);
}
