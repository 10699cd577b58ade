/*
 * weblogin.c -- GET and POST /api/login, POST /api/logout: a browser on
 * another host trades the answer to a challenge, made with the operator
 * key, for a session cookie (websession.h, volery-api(7)).
 */
#include <stdio.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/http.h>

#include <jansson.h>

#include "bounds.h"
#include "clock.h"
#include "httpreply.h"
#include "service.h"
#include "log.h"
#include "websession.h"

/*
 * GET /api/login: a challenge to answer with the operator key, and
 * whether this client needs to (one on this host never does).
 */
void
weblogin_get(struct evhttp_request *req, const char *rest)
{
	char		 challenge[WEBSESSION_CHALLENGE_LEN + 1], command[96];
	int		 local = http_peer_is_local(req);
	int		 in = local || websession_valid(http_cookie(req),
			    clock_node_ms());
	struct http_who	 who;

	/* Who looks, and whether every task is theirs to touch: the page
	 * offers only what the node would accept. */
	http_who(req, &who);
	if (!websession_enabled()) {
		http_reply_json(req, 200, "OK", json_pack("{s:b,s:b,s:n,s:s,"
		    "s:b}", "authenticated", in, "local", local, "challenge",
		    "user", who.user, "admin", service_is_admin(who.user)));
		return;
	}
	websession_challenge(clock_node_ms(), challenge);
	snprintf(command, sizeof command, "volery auth %s", challenge);
	http_reply_json(req, 200, "OK", json_pack("{s:b,s:b,s:s,s:s,s:s,s:b}",
	    "authenticated", in, "local", local, "challenge", challenge,
	    "command", command, "user", who.user, "admin",
	    service_is_admin(who.user)));
}

/*
 * POST /api/login {"challenge", "answer"}: the answer `volery auth`
 * printed (its "AUTH " too, as pasted) buys a session cookie that
 * scripts cannot read and other sites cannot send.
 */
void
weblogin_post(struct evhttp_request *req, const char *rest)
{
	struct evbuffer	*in = evhttp_request_get_input_buffer(req);
	size_t		 len = evbuffer_get_length(in);
	const char	*challenge, *answer, *why;
	char		 token[WEBSESSION_TOKEN_LEN + 1], set[192];
	struct http_who	 who;
	json_t		*body;

	if (!http_post_allowed(req))
		return;
	http_who(req, &who);
	body = json_loadb((const char *)evbuffer_pullup(in, len), len, 0, NULL);
	if (json_unpack(body, "{s:s,s:s}", "challenge", &challenge, "answer",
	    &answer) == -1) {
		json_decref(body);
		http_reply_error(req, 400, "Bad Request", "a login is "
		    "{\"challenge\": ..., \"answer\": ...}");
		return;
	}
	if (strncmp(answer, "AUTH ", 5) == 0)
		answer += 5;
	if (websession_login(challenge, answer, clock_node_ms(), token,
	    &why) == -1) {
		log_warnx("http: %s failed to log in: %s", who.addr, why);
		json_decref(body);
		http_reply_error(req, 403, "Forbidden", why);
		return;
	}
	json_decref(body);
	log_info("http: %s logged in with the operator key", who.addr);
	snprintf(set, sizeof set, "%s=%s; Path=/; Max-Age=%lld; HttpOnly; "
	    "SameSite=Strict", WEBSESSION_COOKIE, token,
	    (long long)(WEBSESSION_TTL_MS / 1000));
	evhttp_add_header(evhttp_request_get_output_headers(req), "Set-Cookie",
	    set);
	http_reply_json(req, 200, "OK", json_pack("{s:b,s:I}", "authenticated", 1,
	    "expires_in_ms", (json_int_t)WEBSESSION_TTL_MS));
}

void
weblogin_logout(struct evhttp_request *req, const char *rest)
{
	if (!http_post_allowed(req))
		return;
	websession_logout(http_cookie(req));
	evhttp_add_header(evhttp_request_get_output_headers(req), "Set-Cookie",
	    WEBSESSION_COOKIE "=; Path=/; Max-Age=0; HttpOnly; "
	    "SameSite=Strict");
	http_reply_json(req, 200, "OK", json_pack("{s:b}", "authenticated",
	    http_peer_is_local(req)));
}
