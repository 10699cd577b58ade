/*
 * http.c -- the node's HTTP side (http.h): a table of routes, the check
 * of who asks before any of them, JSON replies (httpreply.h), the
 * dashboard's files.  The event streams are webstream.c's, logins
 * weblogin.c's, log searches weblog.c's.
 */
#include <sys/queue.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include <jansson.h>

#include "api.h"
#include "clock.h"
#include "http.h"
#include "httpreply.h"
#include "lex.h"
#include "log.h"
#include "service.h"
#include "sockowner.h"
#include "webfiles.h"
#include "webpost.h"
#include "task.h"
#include "websession.h"
#include "webstream.h"
#include "websubmit.h"

#define BODY_MAX		(1024 * 1024)
#define HEADERS_MAX		(16 * 1024)
static struct {
	struct evhttp			*http;
	char				 hostname[256];
} h;

/* Reply with v as JSON (v's reference is taken). */
void
http_reply_json(struct evhttp_request *req, int code, const char *reason,
    json_t *v)
{
	struct evbuffer	*out = evbuffer_new();
	char		*text = v != NULL ? json_dumps(v, JSON_COMPACT) : NULL;

	json_decref(v);
	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", "application/json");
	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Cache-Control", "no-store");
	if (out == NULL || text == NULL) {
		free(text);
		if (out != NULL)
			evbuffer_free(out);
		evhttp_send_error(req, 500, "out of memory");
		return;
	}
	evbuffer_add(out, text, strlen(text));
	evbuffer_add(out, "\n", 1);
	free(text);
	evhttp_send_reply(req, code, reason, out);
	evbuffer_free(out);
}

void
http_reply_error(struct evhttp_request *req, int code, const char *reason,
    const char *why)
{
	http_reply_json(req, code, reason, json_pack("{s:s}", "error", why));
}

/* Is the client on this host? */
int
http_peer_is_local(struct evhttp_request *req)
{
	struct evhttp_connection	*conn = evhttp_request_get_connection(req);
	const struct sockaddr		*sa = conn != NULL ?
					    evhttp_connection_get_addr(conn) : NULL;

	if (sa == NULL)
		return 0;
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)(const void *)sa)->
		    sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a =
		    &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
		return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) &&
		    a->s6_addr[12] == 127);
	}
	return 0;
}

/*
 * A page of another site, its name pointed at 127.0.0.1, could read a
 * local node's answers (DNS rebinding): a local client must name us by
 * an address, localhost, or this host's name.
 */
static int
host_is_ours(struct evhttp_request *req)
{
	const char	*host = evhttp_find_header(
			    evhttp_request_get_input_headers(req), "Host");
	char		 name[ADDR_MAXLEN + 8];
	struct in6_addr	 a6;
	struct in_addr	 a4;
	int		 port;

	if (host == NULL || lex_hostport(host, name, sizeof name, &port) == -1)
		return 0;
	return inet_pton(AF_INET, name, &a4) == 1 ||
	    inet_pton(AF_INET6, name, &a6) == 1 ||
	    strcasecmp(name, "localhost") == 0 ||
	    strcasecmp(name, h.hostname) == 0;
}

const char *
http_cookie(struct evhttp_request *req)
{
	return evhttp_find_header(evhttp_request_get_input_headers(req),
	    "Cookie");
}

/* Every GET but the event stream: api_get's answer. */
static void
get_api(struct evhttp_request *req, const char *rest)
{
	int	 code;
	json_t	*v = api_get(evhttp_request_get_uri(req), &code);

	http_reply_json(req, code, code == 200 ? "OK" : code == 404 ? "Not Found" :
	    code == 400 ? "Bad Request" : "Error", v);
}

/* The dashboard's files: "/" is index.html. */
static void
get_file(struct evhttp_request *req, const char *path)
{
	struct evkeyvalq	*out = evhttp_request_get_output_headers(req);
	struct evbuffer		*body;
	const struct webfile	*f;

	if (strcmp(path, "/") == 0)
		path = "/index.html";
	for (f = webfiles; f->path != NULL; f++)
		if (strcmp(f->path, path) == 0)
			break;
	if (f->path == NULL || (body = evbuffer_new()) == NULL) {
		http_reply_error(req, 404, "Not Found", "no such path");
		return;
	}
	evhttp_add_header(out, "Content-Type", f->type);
	evhttp_add_header(out, "Cache-Control", "no-cache");
	evhttp_add_header(out, "X-Content-Type-Options", "nosniff");
	/* Its own scripts and API only: a task's name is text, never code. */
	evhttp_add_header(out, "Content-Security-Policy", "default-src 'self'; "
	    "script-src 'self'; style-src 'self' 'unsafe-inline'; img-src "
	    "'self' data:; connect-src 'self'; frame-ancestors 'none'; "
	    "base-uri 'none'; form-action 'self'");
	evbuffer_add_reference(body, f->bytes, f->size, NULL, NULL);
	evhttp_send_reply(req, 200, "OK", body);
	evbuffer_free(body);
}

/*
 * A POST from a page of another site must not count (CSRF): only JSON
 * bodies, which a form cannot send and a script of another origin may
 * not without a preflight we never grant, and an Origin, if given, that
 * is ours.
 */
int
http_post_allowed(struct evhttp_request *req)
{
	struct evkeyvalq	*in = evhttp_request_get_input_headers(req);
	const char		*type = evhttp_find_header(in, "Content-Type");
	const char		*origin = evhttp_find_header(in, "Origin");
	const char		*host = evhttp_find_header(in, "Host");

	if (type == NULL || strncasecmp(type, "application/json", 16) != 0 ||
	    (type[16] != '\0' && type[16] != ';')) {
		http_reply_error(req, 415, "Unsupported Media Type", "a POST's body "
		    "is JSON (Content-Type: application/json)");
		return 0;
	}
	if (origin != NULL && (host == NULL || strncmp(origin, "http://", 7)
	    != 0 || strcmp(origin + 7, host) != 0)) {
		http_reply_error(req, 403, "Forbidden", "a POST from another origin");
		return 0;
	}
	return 1;
}

/* Who asks, for the task's record: the address and, on this host, the
 * user that owns the connection. */
void
http_who(struct evhttp_request *req, struct http_who *w)
{
	struct evhttp_connection *conn = evhttp_request_get_connection(req);
	struct bufferevent	*bev = conn != NULL ?
				    evhttp_connection_get_bufferevent(conn) :
				    NULL;
	char			*host = NULL;
	ev_uint16_t		 port = 0;
	uid_t			 uid;

	if (conn != NULL)
		evhttp_connection_get_peer(conn, &host, &port);
	snprintf(w->addr, sizeof w->addr, "http/%s:%u", host != NULL ? host :
	    "?", (unsigned)port);
	w->user[0] = '\0';
	w->uid = -1;
	if (!http_peer_is_local(req))	/* in with the operator key */
		snprintf(w->user, sizeof w->user, "operator");
	else if (bev != NULL && sock_peer_uid(bufferevent_getfd(bev), &uid) ==
	    0) {
		sock_user_name(uid, w->user, sizeof w->user);
		w->uid = uid;
	}
}

/* Is the client a process of one of this node's runs?  (Looked up only
 * where it matters: finding a loopback peer's process costs a walk.) */
static int
from_a_run(struct evhttp_request *req)
{
	struct evhttp_connection *conn = evhttp_request_get_connection(req);
	struct bufferevent	*bev = conn != NULL ?
				    evhttp_connection_get_bufferevent(conn) :
				    NULL;
	pid_t			 pid;

	return http_peer_is_local(req) && bev != NULL &&
	    sock_peer_pid(bufferevent_getfd(bev), &pid) == 0 &&
	    service_pid_in_run(pid);
}

static void
post_task(struct evhttp_request *req, const char *rest)
{
	struct evbuffer	*in = evhttp_request_get_input_buffer(req);
	size_t		 len = evbuffer_get_length(in);
	struct http_who	 who;
	json_t		*v;
	int		 code;

	if (!http_post_allowed(req))
		return;
	http_who(req, &who);
	v = webpost_task((const char *)evbuffer_pullup(in, len), len, &who,
	    &code);
	websubmit_reply(req, code, v);
}

static void
post_cancel(struct evhttp_request *req, const char *uuid)
{
	struct http_who	 who;
	int		 code;
	json_t		*v;

	if (!http_post_allowed(req))
		return;
	http_who(req, &who);
	if (from_a_run(req)) {
		http_reply_error(req, 403, "Forbidden", "a cancel is not "
		    "accepted from a task's run: a task does not decide for "
		    "other tasks");
		return;
	}
	v = webpost_cancel(uuid, who.user, &code);
	http_reply_json(req, code, code == 202 ? "Accepted" : code == 403 ?
	    "Forbidden" : "Error", v);
}

static void
get_events(struct evhttp_request *req, const char *rest)
{
	webstream_open(req);
}

static const struct route {
	const char	*path;		/* the whole path, or its start */
	const char	*suffix;	/* with a start: its end, or NULL;
					 * the handler gets what is between */
	int		 prefix;
	enum evhttp_cmd_type method;
	void		(*fn)(struct evhttp_request *, const char *rest);
} routes[] = {
	{ "/api/events", NULL, 0, EVHTTP_REQ_GET, get_events },
	{ "/api/log", NULL, 0, EVHTTP_REQ_GET, weblog_get },
	{ "/api/login", NULL, 0, EVHTTP_REQ_GET, weblogin_get },
	{ "/api/login", NULL, 0, EVHTTP_REQ_POST, weblogin_post },
	{ "/api/logout", NULL, 0, EVHTTP_REQ_POST, weblogin_logout },
	{ "/api/nodes", NULL, 0, EVHTTP_REQ_GET, get_api },
	{ "/api/queue", NULL, 0, EVHTTP_REQ_GET, get_api },
	{ "/api/stats", NULL, 0, EVHTTP_REQ_GET, get_api },
	{ "/api/tasks", NULL, 0, EVHTTP_REQ_GET, get_api },
	{ "/api/tasks", NULL, 0, EVHTTP_REQ_POST, post_task },
	{ "/api/tasks/", NULL, 1, EVHTTP_REQ_GET, get_api },
	{ "/api/tasks/", "/cancel", 1, EVHTTP_REQ_POST, post_cancel },
	{ "/api/workflows", NULL, 0, EVHTTP_REQ_GET, get_api },
	{ "/api/workflows", NULL, 0, EVHTTP_REQ_POST, websubmit_workflow },
};
#define NROUTES (sizeof routes / sizeof routes[0])

static void
request_cb(struct evhttp_request *req, void *arg)
{
	const struct evhttp_uri	*uri = evhttp_request_get_evhttp_uri(req);
	const char		*path = uri != NULL ? evhttp_uri_get_path(uri) :
				    NULL;
	size_t			 i, len;
	int			 known = 0;

	if (path == NULL) {
		http_reply_error(req, 400, "Bad Request", "bad URI");
		return;
	}
	/*
	 * Who asks, before anything is read or done: a client on another
	 * host gets the page and the login, and the rest with a session.
	 */
	if (!http_peer_is_local(req) && strncmp(path, "/api/", 5) == 0 &&
	    strcmp(path, "/api/login") != 0 &&
	    !websession_valid(http_cookie(req), clock_node_ms())) {
		http_reply_error(req, 401, "Unauthorized", "authentication "
		    "required");
		return;
	}
	if (!host_is_ours(req)) {
		http_reply_error(req, 403, "Forbidden", "Host: an address, "
		    "localhost or this host's name");
		return;
	}
	if (strncmp(path, "/api/", 5) != 0) {
		if (evhttp_request_get_command(req) == EVHTTP_REQ_GET)
			get_file(req, path);
		else
			http_reply_error(req, 405, "Method Not Allowed", "method not "
			    "allowed here");
		return;
	}
	for (i = 0; i < NROUTES; i++) {
		char	 middle[UUID_STRLEN + 8];
		size_t	 slen = routes[i].suffix != NULL ?
			    strlen(routes[i].suffix) : 0, mlen;

		len = strlen(routes[i].path);
		if (!routes[i].prefix) {
			if (strcmp(path, routes[i].path) != 0)
				continue;
			middle[0] = '\0';
		} else {
			if (strncmp(path, routes[i].path, len) != 0)
				continue;
			mlen = strlen(path + len);
			if (mlen <= slen || (slen > 0 && strcmp(path + len +
			    mlen - slen, routes[i].suffix) != 0) ||
			    mlen - slen >= sizeof middle)
				continue;
			memcpy(middle, path + len, mlen - slen);
			middle[mlen - slen] = '\0';
			if (strchr(middle, '/') != NULL)
				continue;
		}
		known = 1;
		if (evhttp_request_get_command(req) == routes[i].method) {
			routes[i].fn(req, middle);
			return;
		}
	}
	if (known)
		http_reply_error(req, 405, "Method Not Allowed", "method not "
		    "allowed here");
	else
		http_reply_error(req, 404, "Not Found", "no such path");
}

int
http_open(struct event_base *base, const char *addr,
    const uint8_t *operator_key, char *bound, size_t boundlen, char *err,
    size_t errlen)
{
	struct evhttp_bound_socket	*sock;
	char				 host[ADDR_MAXLEN + 1];
	int				 port;

	if (lex_hostport(addr, host, sizeof host, &port) == -1 || port < 0) {
		snprintf(err, errlen, "bad <http> address %s", addr);
		return -1;
	}
	if (strcmp(host, "*") == 0)
		snprintf(host, sizeof host, "0.0.0.0");
	websession_init(operator_key);
	if (gethostname(h.hostname, sizeof h.hostname) == -1)
		h.hostname[0] = '\0';
	websubmit_init(base);
	if ((h.http = evhttp_new(base)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	evhttp_set_max_body_size(h.http, BODY_MAX);
	evhttp_set_max_headers_size(h.http, HEADERS_MAX);
	evhttp_set_allowed_methods(h.http, EVHTTP_REQ_GET | EVHTTP_REQ_POST);
	evhttp_set_gencb(h.http, request_cb, NULL);
	if (webstream_init(base) == -1) {
		snprintf(err, errlen, "out of memory");
		evhttp_free(h.http);
		h.http = NULL;
		return -1;
	}
	if ((sock = evhttp_bind_socket_with_handle(h.http, host, port)) ==
	    NULL) {
		snprintf(err, errlen, "cannot listen on %s for HTTP", addr);
		evhttp_free(h.http);
		h.http = NULL;
		return -1;
	}
	sock_bound_name(evhttp_bound_socket_get_fd(sock), bound, boundlen);
	return 0;
}

void
http_close(void)
{
	websubmit_close();
	webstream_close();
	if (h.http != NULL)
		evhttp_free(h.http);
	h.http = NULL;
}
