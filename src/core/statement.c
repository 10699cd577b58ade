/*
 * statement.c -- length-prefixed BLAKE2b statements (statement.h); their
 * signatures are signature.c's.
 */
#include <string.h>

#include <sodium/utils.h>

#include "be64.h"
#include "statement.h"

void
statement_init(statement *st, const char *context)
{
	crypto_generichash_init(st, NULL, 0, STATEMENT_BYTES);
	statement_str(st, context);
}

void
statement_str(statement *st, const char *s)
{
	uint8_t	len[8];

	be64_put(len, s != NULL ? strlen(s) + 1 : 0);
	crypto_generichash_update(st, len, sizeof len);
	if (s != NULL)
		crypto_generichash_update(st, (const uint8_t *)s, strlen(s));
}

void
statement_num(statement *st, int64_t v)
{
	uint8_t	b[8];

	be64_put(b, (uint64_t)v);
	crypto_generichash_update(st, b, sizeof b);
}

void
statement_list(statement *st, char *const *v, int n)
{
	int	i;

	statement_num(st, n);
	for (i = 0; i < n; i++)
		statement_str(st, v[i]);
}

void
statement_final(statement *st, uint8_t out[STATEMENT_BYTES])
{
	crypto_generichash_final(st, out, STATEMENT_BYTES);
}

void
statement_sig_text(const uint8_t sig[64], char text[STATEMENT_SIG_TEXT])
{
	sodium_bin2base64(text, STATEMENT_SIG_TEXT, sig, 64,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
}

int
statement_sig_bytes(const char *text, uint8_t sig[64])
{
	size_t	got;

	if (text == NULL || sodium_base642bin(sig, 64, text, strlen(text),
	    NULL, &got, NULL, sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
	    got != 64)
		return -1;
	return 0;
}
