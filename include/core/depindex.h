/*
 * depindex.h -- the reverse of the task inputs: upstream uuid -> the
 * uuids of its dependents.  The task map keeps it (taskmap.c).
 */
#ifndef VOLERY_DEPINDEX_H
#define VOLERY_DEPINDEX_H

#include <stddef.h>

#include "bounds.h"
#include "uuidlist.h"
#include "uuidmap.h"

struct dep_entry {
	char		 up[UUID_STRLEN + 1];
	struct uuidlist	 down;
};

struct depindex {
	struct dep_entry	*v;	/* upstreams with dependents */
	size_t			 n, cap;
	struct uuidmap		 index;	/* up -> its entry in v */
};

/* Note that down depends on up (once, however many inputs). */
int	depindex_add(struct depindex *, const char *up, const char *down);
void	depindex_del(struct depindex *, const char *up, const char *down);
/* up's dependents, *count of them (NULL, 0 if none). */
const char (*depindex_get(const struct depindex *, const char *up,
	    int *count))[UUID_STRLEN + 1];
void	depindex_free(struct depindex *);

#endif
