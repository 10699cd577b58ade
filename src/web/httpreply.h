/*
 * httpreply.h -- what the HTTP side's handlers share (http.c serves,
 * weblogin.c and weblog.c answer some of its routes): JSON replies, who
 * asks, and the check a POST passes before anything is read.
 */
#ifndef VOLERY_HTTPREPLY_H
#define VOLERY_HTTPREPLY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "bounds.h"

struct evhttp_request;

/* Reply with v as JSON (v's reference is taken). */
void	http_reply_json(struct evhttp_request *, int code, const char *reason,
	    json_t *v);
/* {"error": why}. */
void	http_reply_error(struct evhttp_request *, int code, const char *reason,
	    const char *why);
/* Is the client on this host? */
int	http_peer_is_local(struct evhttp_request *);
/* The request's Cookie: header, or NULL. */
const char *http_cookie(struct evhttp_request *);
/* A JSON body from our own origin: 1, else 0 with the error sent. */
int	http_post_allowed(struct evhttp_request *);
/* Who asks: "http/ADDR:PORT" and, on this host, the user owning the
 * connection and its uid ("", -1 if unknown); from another host,
 * "operator" (as a remote client's AUTH; no uid). */
struct http_who {
	char	addr[ADDR_MAXLEN + 16];
	char	user[USER_MAXLEN + 1];
	int64_t	uid;
};
void	http_who(struct evhttp_request *, struct http_who *);

/* The routes other files answer. */
void	weblogin_get(struct evhttp_request *, const char *rest);
void	weblogin_post(struct evhttp_request *, const char *rest);
void	weblogin_logout(struct evhttp_request *, const char *rest);
void	weblog_get(struct evhttp_request *, const char *rest);

#endif
