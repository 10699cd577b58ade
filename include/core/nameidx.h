/*
 * nameidx.h -- an index by name of an array the caller owns (the peer
 * table, the datagram guard's senders): open addressing over the
 * array's positions, the names read back through a function.
 */
#ifndef VOLERY_NAMEIDX_H
#define VOLERY_NAMEIDX_H

#include <stddef.h>
#include <stdint.h>

/* The name of element i of the array ctx. */
typedef const char *nameidx_name_fn(const void *ctx, size_t i);

/* A position and its name's hash: a probe reads the name (an element
 * elsewhere in memory) only when the hashes agree. */
struct nameidx_slot {
	int		 pos;		/* -1 free */
	uint32_t	 hash;
};

struct nameidx {
	struct nameidx_slot *slots;
	size_t		 cap;		/* power of two */
	nameidx_name_fn	*name;
	const void	*ctx;
};

/* The position of name, or -1. */
int	nameidx_find(const struct nameidx *, const char *name);
/* Index element n - 1 of an array of n (growing); -1 out of memory. */
int	nameidx_add(struct nameidx *, size_t n);
/* Index elements 0 .. n - 1 again (after names changed in place). */
void	nameidx_rebuild(struct nameidx *, size_t n);
void	nameidx_free(struct nameidx *);

#endif
