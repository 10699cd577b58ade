/*
 * weblog.c -- GET /api/log: the node's log searched as LOG searches it,
 * in the search's thread (logjob.c), the answer sent when it ends; a
 * client that leaves first stops the search.
 */
#include <stdlib.h>

#include <event2/http.h>

#include <jansson.h>

#include "api.h"
#include "httpreply.h"
#include "logjob.h"
#include "service.h"
#include "taskjson.h"

/* A GET /api/log while its search runs (in a thread, logjob.c). */
struct logreq {
	struct evhttp_request		*req;
	struct evhttp_connection	*conn;
	struct logjob			*job;
	struct log_view			*view;	/* what its user may read */
	json_t				*lines;
};

static void
log_line_cb(const char *line, size_t len, void *arg)
{
	struct logreq	*l = arg;

	if (line != NULL) {
		if (service_log_visible(l->view, line, len))
			json_array_append_new(l->lines, log_line_json(line,
			    len));
		return;
	}
	evhttp_connection_set_closecb(l->conn, NULL, NULL);
	http_reply_json(l->req, 200, "OK", l->lines);
	service_log_view_free(l->view);
	free(l);
}

/* The client left before the answer: stop searching for it. */
static void
log_closed_cb(struct evhttp_connection *conn, void *arg)
{
	struct logreq	*l = arg;

	logjob_cancel(l->job);
	json_decref(l->lines);
	service_log_view_free(l->view);
	free(l);
}

/* GET /api/log?regex=&level=&task=&since=&until=&lines=: LOG's search. */
void
weblog_get(struct evhttp_request *req, const char *rest)
{
	struct api_log_req	 r;
	struct logreq		*l;
	char			 err[300];
	struct http_who		 who;
	int			 code;
	json_t			*bad;

	if ((bad = api_log_request(evhttp_request_get_uri(req), &r, &code)) !=
	    NULL) {
		http_reply_json(req, code, "Bad Request", bad);
		return;
	}
	/* A task's lines are its owner's, as `volery log -t` is. */
	http_who(req, &who);
	if (r.q.uuid != NULL && service_may_touch(who.user, r.q.uuid, err,
	    sizeof err) == -1) {
		http_reply_error(req, 403, "Forbidden", err);
		return;
	}
	if ((l = calloc(1, sizeof *l)) == NULL ||
	    (l->view = service_log_view(who.user)) == NULL ||
	    (l->lines = json_array()) == NULL) {
		if (l != NULL)
			service_log_view_free(l->view);
		free(l);
		http_reply_error(req, 500, "Internal Server Error", "out of memory");
		return;
	}
	l->req = req;
	l->conn = evhttp_request_get_connection(req);
	if ((l->job = service_log_search(&r.q, r.has_since ? r.since : NULL,
	    r.has_until ? r.until : NULL, r.nlines, log_line_cb, l, &code,
	    err, sizeof err)) == NULL) {
		json_decref(l->lines);
		service_log_view_free(l->view);
		free(l);
		http_reply_error(req, code, code == 400 ? "Bad Request" : code == 503 ?
		    "Service Unavailable" : "Internal Server Error", err);
		return;
	}
	evhttp_connection_set_closecb(l->conn, log_closed_cb, l);
}
