/*
 * req-log.c -- the requests that read what was written: LOG (the node's
 * log searched in a thread, service.h) and OUTPUT (a run's stdout or
 * stderr, served here or asked of the node that ran it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients.h"
#include "history.h"
#include "logjob.h"
#include "logsearch.h"
#include "node.h"
#include "outfetch.h"
#include "output.h"
#include "reqs.h"
#include "requests.h"
#include "service.h"
#include "task.h"
#include "wire.h"

/* A LOG while its search runs: what of the log its client may read. */
struct log_read {
	struct client	*c;
	struct logjob	*job;
	struct log_view	*view;
};

/* A line of a LOG answer, as the search thread finds it; NULL: done. */
static void
log_out_cb(const char *line, size_t len, void *arg)
{
	struct log_read	*r = arg;
	struct client	*c = r->c;
	char		 buf[CLIENT_LINE_MAX + 2];

	if (line == NULL) {
		service_log_view_free(r->view);
		free(r);
		/* Unhold first: the reply may drop (free) the client. */
		client_unhold(c);
		client_reply(c, 0, ".\n");
		return;
	}
	if (!service_log_visible(r->view, line, len))
		return;		/* another user's task */
	/* Log lines are ours and short; a longer one is cut. */
	snprintf(buf, sizeof buf, "%.*s\n", (int)(len < CLIENT_LINE_MAX ?
	    len : CLIENT_LINE_MAX), line);
	client_reply(c, 0, buf);
}

/* The client left first: out is not called again (logjob.h). */
static void
log_cancel_cb(void *arg)
{
	struct log_read	*r = arg;

	logjob_cancel(r->job);
	service_log_view_free(r->view);
	free(r);
}

/* LOG: the last matching lines of our log file. */
void
req_log(struct client *c, const struct client_req *req)
{
	struct log_query	 q;
	struct log_read		*r;
	char			 err[300];
	int			 status;

	memset(&q, 0, sizeof q);
	q.regex = req->regex;
	q.has_level = req->has_level;
	q.level = req->level;
	q.uuid = req->nuuid > 0 ? req->uuid[0] : NULL;
	if ((r = calloc(1, sizeof *r)) == NULL ||
	    (r->view = service_log_view(client_user(c))) == NULL) {
		free(r);
		client_replyf(c, "ERROR out of memory\n");
		return;
	}
	r->c = c;
	if ((r->job = service_log_search(&q, req->since, req->until,
	    req->nlines, log_out_cb, r, &status, err, sizeof err)) == NULL) {
		service_log_view_free(r->view);
		free(r);
		client_replyf(c, "ERROR %s\n", err);
		return;
	}
	client_hold(c, r, log_cancel_cb);
}

struct output_req {
	struct task	*t;		/* a copy: the map may change */
	int		 stream, follow;
	int64_t		 offset;
};

/* OUTPUT, once the replies before it are out: served from here, or
 * asked of the node that ran the task. */
static void
output_cb(struct client *c, void *arg)
{
	struct node		*core = req_env()->core;
	struct output_req	*o = arg;
	const char		*addr;
	char			 line[256];

	if (c == NULL)
		;
	else if (strcmp(o->t->running_on, node_name(core)) == 0)
		output_serve(c, o->t, o->stream, o->follow, o->offset);
	else {
		addr = node_peer_addr(core, o->t->running_on, 1);
		snprintf(line, sizeof line, "OUTPUT %s%s%s -c %lld",
		    o->t->uuid, o->stream == OUTPUT_STDERR ? " -e" : "",
		    o->follow ? " -f" : "", (long long)o->offset);
		if (addr == NULL)
			client_replyf(c, "ERROR task %s ran on %s, a node "
			    "this one does not hear from\n", o->t->uuid,
			    o->t->running_on);
		else
			outfetch_start(c, o->t->running_on, addr, line);
	}
	task_free(o->t);
	free(o);
}

/* The task of uuid in the map or the history (read into *hist once). */
static const struct task *
lookup(const char *uuid, struct task ***hist, size_t *nhist)
{
	const struct task	*t = node_find(req_env()->core, uuid);

	if (t != NULL)
		return t;
	if (*hist == NULL)
		*hist = history_read(nhist);
	return history_find(*hist, *nhist, uuid);
}

void
req_output(struct client *c, const struct client_req *req)
{
	const struct task	*t, *r;
	struct task		**hist = NULL;
	struct output_req	*o;
	char			 rec[RECORD_LINE_MAX], err[128];
	char			 ruuid[UUID_STRLEN + 1];
	size_t			 nhist = 0;

	t = lookup(req->uuid[0], &hist, &nhist);
	/* A --verify task's output is its first replica's: the others
	 * printed the same, or it failed. */
	if (t != NULL && task_is_verified(t)) {
		task_replica_uuid(t->uuid, 0, ruuid);
		if ((r = lookup(ruuid, &hist, &nhist)) != NULL)
			t = r;
	}
	if (t == NULL)
		client_replyf(c, "ERROR unknown task %s\n", req->uuid[0]);
	else if (t->running_on[0] == '\0')
		client_replyf(c, "ERROR task %s has not run yet (%s)\n",
		    t->uuid, task_shown_state(t));
	else if ((o = calloc(1, sizeof *o)) == NULL ||
	    wire_task_encode(t, rec, sizeof rec) == -1 ||
	    (o->t = wire_task_decode(rec, strlen(rec), err,
	    sizeof err)) == NULL) {
		free(o);
		client_replyf(c, "ERROR out of memory\n");
	} else {
		o->stream = req->out_stderr ? OUTPUT_STDERR : OUTPUT_STDOUT;
		o->follow = req->out_follow;
		o->offset = req->out_offset;
		client_after_replies(c, output_cb, o);
	}
	history_free(hist, nhist);
}
