/*
 * fuzz_session.c -- libFuzzer: any bytes as a browser's Cookie: header
 * and as the answer to a login challenge (websession.h).  No forged
 * cookie is a session, no wrong answer logs in, a spent challenge stays
 * spent, and nothing crashes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "seal.h"
#include "websession.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t	 key[SEAL_KEY_BYTES] = { 1, 2, 3 };
	char		*text = malloc(size + 1);
	char		 challenge[WEBSESSION_CHALLENGE_LEN + 1];
	char		 token[WEBSESSION_TOKEN_LEN + 1], right[AUTH_HEX_LEN + 1];
	const char	*why;
	int64_t		 now = 1000;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	websession_init(key);
	if (websession_valid(text, now))
		abort();		/* no session yet */
	websession_challenge(now, challenge);
	seal_auth_answer(key, challenge, right);
	if (websession_login(challenge, text, now, token, &why) == 0 &&
	    strcmp(text, right) != 0)
		abort();		/* a wrong answer let in */
	if (websession_login(challenge, right, now, token, &why) == 0)
		abort();		/* the challenge was spent */
	websession_challenge(now, challenge);
	seal_auth_answer(key, challenge, right);
	if (websession_login(challenge, right, now, token, &why) != 0)
		abort();
	if (websession_valid(text, now) && strstr(text, token) == NULL)
		abort();		/* a forged cookie taken */
	websession_logout(text);
	free(text);
	return 0;
}
