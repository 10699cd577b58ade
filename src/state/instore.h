/*
 * instore.h -- the input files this node keeps, <state_dir>/inputs/
 * <owner>.<hash> (0600), named by their task's owner and BLAKE2b-256:
 * fetched once for a run (infiles.h), kept for the next run of the same
 * owner that names the same bytes (another element of an array, a later
 * submit of the same data), until <cache_mb> is full: then the least
 * recently used go first.  Per owner, because the node that took a task
 * reads its files as its owner: a hash alone must not buy another user's
 * file.  A copy is hashed again each time a run is given it: a file
 * changed on disk is never used.
 */
#ifndef VOLERY_INSTORE_H
#define VOLERY_INSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

struct runas;

int	instore_open(const char *state_dir, int64_t cache_bytes, char *err,
	    size_t errlen);
/* A user name, the part of a stored file's name before its hash. */
#define INSTORE_OWNER_MAX	64
#define INSTORE_NAME_MAX	(INSTORE_OWNER_MAX + DIGEST_HEX + 2)

/* Is owner's file of this hash here, at this size (unchecked)? */
int	instore_has(const char *owner, const char *hash, int64_t bytes);
/* A file to write a fetched copy into (instore_commit, _abort, or
 * _keep_part for the next fetch to go on with), positioned after the
 * *have bytes a fetch that broke left in it. */
int	instore_begin(const char *owner, const char *hash, int64_t *have);
void	instore_keep_part(int fd);
/* The copy is whole, got its hash as it was written: 0 if it is the
 * file of hash at bytes (kept), -1 and why if not (removed).  The store
 * is trimmed to its size then, but for the files pinned() names (by
 * their stored names, "<owner>.<hash>"). */
int	instore_commit(int fd, const char *owner, const char *hash,
	    int64_t bytes, const char *got, int (*pinned)(const char *name),
	    char *why, size_t whylen);
void	instore_abort(int fd, const char *owner, const char *hash);
/* Put the file of hash into the run dir dir at path (relative, checked:
 * no '..'), its directories made as needed, all the run user's: 0, or -1
 * and why.  A copy that no longer hashes as its name says is dropped. */
int	instore_stage(const char *owner, const char *hash, int64_t bytes,
	    const char *dir, const char *path, const struct runas *,
	    char *why, size_t whylen);
/* After a restart: anything not a copy or a part goes. */
void	instore_sweep(void);
void	instore_close(void);

#endif
