/*
 * websession.c -- dashboard logins (websession.h): a few outstanding
 * challenges and a table of sessions, both fixed in size, so that no
 * amount of asking grows the node.  A full table forgets its oldest
 * entry.  Tokens are random (libsodium) and compared in constant time.
 */
#include <string.h>

#include <sodium.h>

#include "seal.h"
#include "websession.h"

#define CHALLENGES_MAX		16
#define CHALLENGE_TTL_MS	(5 * 60 * 1000)
#define SESSIONS_MAX		64
#define TOKEN_BYTES		(WEBSESSION_TOKEN_LEN / 2)

static struct {
	const uint8_t	*key;
	struct challenge {
		char	 hex[WEBSESSION_CHALLENGE_LEN + 1];
		int64_t	 expires;
	} challenges[CHALLENGES_MAX];
	struct session {
		uint8_t	 token[TOKEN_BYTES];
		int64_t	 expires;	/* 0: a free slot */
	} sessions[SESSIONS_MAX];
} ws;

void
websession_init(const uint8_t *operator_key)
{
	memset(&ws, 0, sizeof ws);
	ws.key = operator_key;
}

int
websession_enabled(void)
{
	return ws.key != NULL;
}

/* The slot to reuse: a free or expired one, else the one ending first. */
#define OLDEST(arr, n, now, i, best) do {				\
	(best) = 0;							\
	for ((i) = 0; (i) < (n); (i)++) {				\
		if ((arr)[i].expires <= (now)) {			\
			(best) = (i);					\
			break;						\
		}							\
		if ((arr)[i].expires < (arr)[best].expires)		\
			(best) = (i);					\
	}								\
} while (0)

void
websession_challenge(int64_t now, char out[WEBSESSION_CHALLENGE_LEN + 1])
{
	uint8_t	raw[WEBSESSION_CHALLENGE_LEN / 2];
	int	i, best;

	OLDEST(ws.challenges, CHALLENGES_MAX, now, i, best);
	randombytes_buf(raw, sizeof raw);
	sodium_bin2hex(ws.challenges[best].hex, sizeof ws.challenges[best].hex,
	    raw, sizeof raw);
	ws.challenges[best].expires = now + CHALLENGE_TTL_MS;
	memcpy(out, ws.challenges[best].hex, WEBSESSION_CHALLENGE_LEN + 1);
}

int
websession_login(const char *challenge, const char *answer, int64_t now,
    char token[WEBSESSION_TOKEN_LEN + 1], const char **why)
{
	struct challenge	*c = NULL;
	char			 want[AUTH_HEX_LEN + 1];
	int			 i, best, right;

	if (ws.key == NULL) {
		*why = "this node takes no remote operators (no <operator_key>)";
		return -1;
	}
	if (strlen(challenge) == WEBSESSION_CHALLENGE_LEN)
		for (i = 0; i < CHALLENGES_MAX && c == NULL; i++)
			if (ws.challenges[i].expires > now &&
			    strcmp(ws.challenges[i].hex, challenge) == 0)
				c = &ws.challenges[i];
	if (c == NULL) {
		*why = "no such challenge (expired or already answered): ask "
		    "for another";
		return -1;
	}
	seal_auth_answer(ws.key, c->hex, want);
	right = strlen(answer) == AUTH_HEX_LEN &&
	    sodium_memcmp(answer, want, AUTH_HEX_LEN) == 0;
	c->expires = 0;			/* one try per challenge */
	if (!right) {
		*why = "wrong answer: not made with this node's operator key";
		return -1;
	}
	OLDEST(ws.sessions, SESSIONS_MAX, now, i, best);
	randombytes_buf(ws.sessions[best].token, TOKEN_BYTES);
	ws.sessions[best].expires = now + WEBSESSION_TTL_MS;
	sodium_bin2hex(token, WEBSESSION_TOKEN_LEN + 1, ws.sessions[best].token,
	    TOKEN_BYTES);
	return 0;
}

/* The token a Cookie: header gives volery_session, in bytes. */
static int
cookie_token(const char *header, uint8_t token[TOKEN_BYTES])
{
	const size_t	 nlen = strlen(WEBSESSION_COOKIE);
	const char	*p = header;
	size_t		 len, got;

	while (header != NULL && *p != '\0') {
		p += strspn(p, " \t;");
		len = strcspn(p, ";");
		if (len == nlen + 1 + WEBSESSION_TOKEN_LEN &&
		    strncmp(p, WEBSESSION_COOKIE "=", nlen + 1) == 0 &&
		    sodium_hex2bin(token, TOKEN_BYTES, p + nlen + 1,
		    WEBSESSION_TOKEN_LEN, NULL, &got, NULL) == 0 &&
		    got == TOKEN_BYTES)
			return 0;
		p += len;
	}
	return -1;
}

static struct session *
find(const char *cookie_header, int64_t now)
{
	uint8_t	token[TOKEN_BYTES];
	int	i;

	if (cookie_token(cookie_header, token) == -1)
		return NULL;
	for (i = 0; i < SESSIONS_MAX; i++)
		if (ws.sessions[i].expires > now && sodium_memcmp(token,
		    ws.sessions[i].token, TOKEN_BYTES) == 0)
			return &ws.sessions[i];
	return NULL;
}

int
websession_valid(const char *cookie_header, int64_t now)
{
	return ws.key != NULL && find(cookie_header, now) != NULL;
}

void
websession_logout(const char *cookie_header)
{
	struct session	*s = find(cookie_header, 0);

	if (s != NULL)
		memset(s, 0, sizeof *s);
}
