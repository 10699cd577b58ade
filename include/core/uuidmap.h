/*
 * uuidmap.h -- uuid -> 64-bit number: an index of a sub-protocol's table
 * by task, or a time (tombstones).  Open addressing, linear probing,
 * deletion by backward shift (no tombstones to sweep).
 */
#ifndef VOLERY_UUIDMAP_H
#define VOLERY_UUIDMAP_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

struct uuidmap_entry {
	char	uuid[UUID_STRLEN + 1];	/* "" free */
	int64_t	value;
};

struct uuidmap {
	struct uuidmap_entry	*v;
	size_t			 cap, n;
};

/* Set uuid's value (adding it if new); -1 out of memory. */
int	uuidmap_put(struct uuidmap *, const char *uuid, int64_t value);
/* 1 and *value if present, else 0. */
int	uuidmap_get(const struct uuidmap *, const char *uuid, int64_t *value);
void	uuidmap_del(struct uuidmap *, const char *uuid);
void	uuidmap_free(struct uuidmap *);

#endif
