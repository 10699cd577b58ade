/*
 * websubmit.c -- what the API's scheduling POSTs do with the event loop
 * (websubmit.h): a 201 waits for the journal, as a SCHEDULE line's
 * answer does; a workflow file is parsed and checked in a thread
 * (offloop.h), then scheduled a slice a pass of the loop (webpost.h), so
 * that a file of thousands holds no client and no peer waiting.
 */
#include <stdlib.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>

#include <jansson.h>

#include "httpreply.h"
#include "offloop.h"
#include "service.h"
#include "webpost.h"
#include "websubmit.h"

struct posting;

static struct {
	struct event_base	*base;
	struct posting		*postings;	/* files going in */
} s;

/* A 201 that waits for the journal's commit.  Should the client go
 * first, evhttp keeps the request until this answer frees it. */
struct created {
	struct evhttp_request	*req;
	json_t			*v;
};

static void
created_cb(void *arg, int ok)
{
	struct created	*d = arg;

	if (ok)
		http_reply_json(d->req, 201, "Created", d->v);
	else {
		json_decref(d->v);
		http_reply_json(d->req, 500, "Internal Server Error",
		    json_pack("{s:s}", "error", "the journal could not be "
		    "written: the tasks may be lost"));
	}
	free(d);
}

void
websubmit_reply(struct evhttp_request *req, int code, json_t *v)
{
	struct created	*d;

	if (code != 201 || (d = malloc(sizeof *d)) == NULL) {
		http_reply_json(req, code, code == 201 ? "Created" :
		    code == 500 ? "Internal Server Error" : "Bad Request", v);
		return;
	}
	d->req = req;
	d->v = v;
	service_when_durable(created_cb, d);
}

/* A slice: a few milliseconds.  The next goes on a timer of no delay,
 * after the loop polled. */
#define WF_SLICE	64

struct posting {
	struct evhttp_request	*req;
	char			*body;		/* the thread's, then freed */
	size_t			 len;
	struct http_who		 who;
	struct wf_post		*p;		/* NULL: refused, out says */
	json_t			*out;
	int			 code;
	struct event		*ev;
	struct posting		*next;		/* s.postings */
};

static void
posting_free(struct posting *g)
{
	struct posting	**pp;

	for (pp = &s.postings; *pp != NULL; pp = &(*pp)->next)
		if (*pp == g) {
			*pp = g->next;
			break;
		}
	webpost_workflow_free(g->p);
	json_decref(g->out);
	free(g->body);
	if (g->ev != NULL)
		event_free(g->ev);
	free(g);
}

static void
posting_cb(evutil_socket_t fd, short what, void *arg)
{
	struct posting		*g = arg;
	struct evhttp_request	*req = g->req;
	struct timeval		 now = { 0, 0 };
	json_t			*v = NULL;
	int			 code = 500;

	if (g->p != NULL && !webpost_workflow_step(g->p, WF_SLICE, &v,
	    &code)) {
		evtimer_add(g->ev, &now);
		return;
	}
	if (g->p == NULL) {	/* refused: the parse's answer */
		v = g->out;
		code = g->code;
		g->out = NULL;
	}
	posting_free(g);
	websubmit_reply(req, code, v);
}

/* In its thread: only the posting, nothing of the loop's. */
static void
posting_parse(void *arg)
{
	struct posting	*g = arg;

	g->p = webpost_workflow(g->body, g->len, &g->who, &g->out, &g->code);
	free(g->body);
	g->body = NULL;
}

static void
posting_parsed(void *arg)
{
	posting_cb(-1, EV_TIMEOUT, arg);
}

static void
posting_drop(void *arg)
{
	posting_free(arg);
}

void
websubmit_workflow(struct evhttp_request *req, const char *rest)
{
	struct evbuffer	*in = evhttp_request_get_input_buffer(req);
	size_t		 len = evbuffer_get_length(in);
	struct posting	*g;

	if (!http_post_allowed(req))
		return;
	if ((g = calloc(1, sizeof *g)) == NULL ||
	    (g->body = malloc(len + 1)) == NULL ||
	    (g->ev = evtimer_new(s.base, posting_cb, g)) == NULL) {
		if (g != NULL)
			free(g->body);
		free(g);
		http_reply_error(req, 500, "Internal Server Error", "out of "
		    "memory");
		return;
	}
	g->req = req;
	g->len = evbuffer_copyout(in, g->body, len) < 0 ? 0 : len;
	g->body[g->len] = '\0';
	http_who(req, &g->who);
	g->next = s.postings;
	s.postings = g;
	if (offloop_start(s.base, posting_parse, posting_parsed, posting_drop,
	    g) == -1) {
		posting_parse(g);	/* no thread: here, then */
		posting_parsed(g);
	}
}

void
websubmit_init(struct event_base *base)
{
	s.base = base;
}

/* Stopped while a file went in: what is in stays in the journal, and
 * the client is not told (evhttp_free closes it). */
void
websubmit_close(void)
{
	offloop_shutdown();
	while (s.postings != NULL)
		posting_free(s.postings);
}
