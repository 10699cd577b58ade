/*
 * errlist.h -- "file:line: message" problems, one per line, collected so
 * that a user sees every problem of a file at once (config, workflow).
 */
#ifndef VOLERY_ERRLIST_H
#define VOLERY_ERRLIST_H

#include <stddef.h>

struct errlist {
	const char	*file;
	char		*buf;
	size_t		 len, off;
	int		 count;
};

void	errlist_init(struct errlist *, const char *file, char *buf,
	    size_t len);
void	errlist_add(struct errlist *, long line, const char *, ...)
	    __attribute__((format(printf, 3, 4)));

#endif
