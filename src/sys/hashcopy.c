/*
 * hashcopy.c -- hash while reading, copy while hashing (hashcopy.h).
 */
#include <errno.h>
#include <unistd.h>

#include <sodium.h>

#include "hashcopy.h"

int64_t
hashcopy(int in, int out, int64_t max, char hash[DIGEST_HEX + 1])
{
	crypto_generichash_state	st;
	unsigned char			buf[65536], h[DIGEST_HEX / 2];
	int64_t				total = 0;
	ssize_t				n;

	crypto_generichash_init(&st, NULL, 0, sizeof h);
	while ((n = read(in, buf, sizeof buf)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if ((total += n) > max) {
			errno = EFBIG;
			return -1;
		}
		crypto_generichash_update(&st, buf, (size_t)n);
		if (out != -1 && write(out, buf, (size_t)n) != n) {
			if (errno == 0)
				errno = ENOSPC;
			return -1;
		}
	}
	crypto_generichash_final(&st, h, sizeof h);
	sodium_bin2hex(hash, DIGEST_HEX + 1, h, sizeof h);
	return total;
}
