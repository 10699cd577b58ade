/*
 * statement.h -- what a node signs, hashed unambiguously: a context,
 * then fields each length-prefixed (a string's length counts its NUL,
 * so NULL and "" differ), so no two statements hash alike by moving
 * bytes from one field to the next.  BLAKE2b (libsodium) does the
 * hashing, Ed25519 (crypto_sign) the signing; origin.c and authorship.c
 * say what goes in.
 */
#ifndef VOLERY_STATEMENT_H
#define VOLERY_STATEMENT_H

#include <stdint.h>

#include <sodium/crypto_generichash.h>

#define STATEMENT_BYTES	32

typedef crypto_generichash_state statement;

void	statement_init(statement *, const char *context);
void	statement_str(statement *, const char *);
void	statement_num(statement *, int64_t);
void	statement_list(statement *, char *const *, int);
void	statement_final(statement *, uint8_t out[STATEMENT_BYTES]);

/* A signature's text: 64 bytes, base64url without padding, and a NUL. */
#define STATEMENT_SIG_TEXT	87

/* A signature's 64 bytes as text; and back (-1: not a signature's). */
void	statement_sig_text(const uint8_t sig[64],
	    char text[STATEMENT_SIG_TEXT]);
int	statement_sig_bytes(const char *text, uint8_t sig[64]);
/* Sign h with sk (Ed25519) into text. */
void	statement_sign(const uint8_t h[STATEMENT_BYTES], const uint8_t *sk,
	    char text[STATEMENT_SIG_TEXT]);
/* 1 if text is pk's signature of h, 0 if not (or not a signature). */
int	statement_signed(const char *text, const uint8_t h[STATEMENT_BYTES],
	    const uint8_t pk[32]);

#endif
