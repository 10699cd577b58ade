/*
 * be64.h -- 64-bit integers as 8 bytes, big-endian: how the seal's
 * header (seal.c) and identities (ident.c) lay numbers out.
 */
#ifndef VOLERY_BE64_H
#define VOLERY_BE64_H

#include <stdint.h>

static inline void
be64_put(uint8_t *p, uint64_t v)
{
	int	i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static inline uint64_t
be64_get(const uint8_t *p)
{
	uint64_t	v = 0;
	int		i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

#endif
