/*
 * websession.h -- logins to the dashboard from another host (issue 15):
 * the node hands out a challenge, the operator answers it with the
 * operator key (`volery auth CHALLENGE`, the same HMAC as a remote TCP
 * client's AUTH), and the browser gets a session cookie (HttpOnly,
 * SameSite=Strict) that stands for the key until it expires or the
 * operator logs out.  Times are the caller's (milliseconds, monotonic).
 */
#ifndef VOLERY_WEBSESSION_H
#define VOLERY_WEBSESSION_H

#include <stddef.h>
#include <stdint.h>

#define WEBSESSION_COOKIE	"volery_session"
#define WEBSESSION_CHALLENGE_LEN 32	/* hex digits, as the TCP CHALLENGE */
#define WEBSESSION_TOKEN_LEN	64	/* hex digits */
#define WEBSESSION_TTL_MS	(12LL * 3600 * 1000)

/* The operator key (kept, not copied), or NULL: nobody may log in. */
void	websession_init(const uint8_t *operator_key);
int	websession_enabled(void);
/* A fresh challenge into out; it may be answered once, within minutes. */
void	websession_challenge(int64_t now, char out[WEBSESSION_CHALLENGE_LEN + 1]);
/* The answer right for an outstanding challenge: the challenge is spent
 * (right or wrong) and, if right, a new session's token is in token.
 * 0, or -1 with why. */
int	websession_login(const char *challenge, const char *answer,
	    int64_t now, char token[WEBSESSION_TOKEN_LEN + 1], const char **why);
/* Does a Cookie: header hold a live session's token? */
int	websession_valid(const char *cookie_header, int64_t now);
/* End the session a Cookie: header names, if any. */
void	websession_logout(const char *cookie_header);

#endif
