/*
 * hashcopy.h -- a file's bytes hashed (BLAKE2b-256, the hash the records
 * carry) as they are read, and copied on the way if asked: one read of
 * the bytes for both.
 */
#ifndef VOLERY_HASHCOPY_H
#define VOLERY_HASHCOPY_H

#include <stdint.h>

#include "bounds.h"

/* Read in to its end, writing each byte to out (-1: none, only hashed),
 * at most max bytes: the size and the hash in hex, or -1 (errno; EFBIG
 * past max, ENOSPC for a short write). */
int64_t	hashcopy(int in, int out, int64_t max, char hash[DIGEST_HEX + 1]);

#endif
