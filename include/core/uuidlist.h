/*
 * uuidlist.h -- a growable list of uuids (duplicates allowed): which
 * tasks a sub-protocol must look at again, without walking the map.
 */
#ifndef VOLERY_UUIDLIST_H
#define VOLERY_UUIDLIST_H

#include <stddef.h>

#include "bounds.h"

struct uuidlist {
	char	(*v)[UUID_STRLEN + 1];
	size_t	  n, cap;
};

int	uuidlist_add(struct uuidlist *, const char *uuid);
void	uuidlist_free(struct uuidlist *);

#endif
