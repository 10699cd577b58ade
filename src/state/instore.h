/*
 * instore.h -- the input files this node keeps, <state_dir>/inputs/<hash>
 * (0600), named by their BLAKE2b-256: fetched once for a run (inputs.h),
 * kept for the next run that names the same bytes (another element of an
 * array, a later submit of the same data), until <cache_mb> is full:
 * then the least recently used go first.  A copy is hashed again each
 * time a run is given it: a file changed on disk is never used.
 */
#ifndef VOLERY_INSTORE_H
#define VOLERY_INSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

struct runas;

int	instore_open(const char *state_dir, int64_t cache_bytes, char *err,
	    size_t errlen);
/* Is the file of this hash here, at this size (unchecked)? */
int	instore_has(const char *hash, int64_t bytes);
/* A file to write a fetched copy into (instore_commit or _abort). */
int	instore_begin(const char *hash);
/* The copy is whole, got its hash as it was written: 0 if it is the
 * file of hash at bytes (kept), -1 and why if not (removed).  The store
 * is trimmed to its size then, but for the files pinned() names. */
int	instore_commit(int fd, const char *hash, int64_t bytes,
	    const char *got, int (*pinned)(const char *hash), char *why,
	    size_t whylen);
void	instore_abort(int fd, const char *hash);
/* Put the file of hash into the run dir dir at path (relative, checked:
 * no '..'), its directories made as needed, all the run user's: 0, or -1
 * and why.  A copy that no longer hashes as its name says is dropped. */
int	instore_stage(const char *hash, int64_t bytes, const char *dir,
	    const char *path, const struct runas *, char *why, size_t whylen);
/* After a restart: what a fetch left half done goes. */
void	instore_sweep(void);

#endif
