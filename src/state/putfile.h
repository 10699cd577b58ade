/*
 * putfile.h -- a file a node keeps (a checkpoint's copy, an input file)
 * put into a run's directory before the run starts, as the run user's:
 * its directories made as needed, never through a symbolic link, never
 * over a file already there, and hashed on the way unless the caller
 * hashed it already.
 */
#ifndef VOLERY_PUTFILE_H
#define VOLERY_PUTFILE_H

#include <stddef.h>
#include <stdint.h>

struct runas;

/* Copy bytes from in to path (relative, its parts checked by the
 * record's checks) under dir, the run user's; with hash (else NULL),
 * only if the bytes hash to it.  0; -1 and why ("path: error"); -2 if
 * they are not bytes long or do not hash so (nothing left in dir). */
int	putfile(int in, int64_t bytes, const char *hash, const char *dir,
	    const char *path, const struct runas *, char *why, size_t whylen);

#endif
