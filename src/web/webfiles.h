/*
 * webfiles.h -- the dashboard's files, compiled into the binary
 * (tools/embed.sh writes the table from src/web/page).
 */
#ifndef VOLERY_WEBFILES_H
#define VOLERY_WEBFILES_H

#include <stddef.h>

struct webfile {
	const char		*path;		/* "/index.html" */
	const char		*type;		/* its Content-Type */
	const unsigned char	*bytes;
	size_t			 size;
};

/* Ends with a NULL path. */
extern const struct webfile webfiles[];

#endif
