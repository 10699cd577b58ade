/*
 * rundir.h -- each run's private working directory, <state_dir>/runs/
 * <uuid>: made (mode 0700, owned by the run user) just before the run
 * starts, removed with everything in it once the run is over.  A node
 * that starts removes what a previous one, killed, left there.
 */
#ifndef VOLERY_RUNDIR_H
#define VOLERY_RUNDIR_H

#include <stddef.h>
#include <stdint.h>

struct runas;

#define RUNDIR_DEPTH_MAX	64	/* deeper trees are left, logged */

/* Make <state_dir>/runs (0711) and empty it.  Keeps a pointer to ra. */
int	rundir_init(const char *state_dir, const struct runas *ra, char *err,
	    size_t errlen);
/* Make the run's directory, ra's (mode 0700); its path into path. */
int	rundir_make(const char *uuid, const struct runas *ra, char *path,
	    size_t pathlen, char *err, size_t errlen);
/* The run's directory's path into path. */
void	rundir_path(const char *uuid, char *path, size_t pathlen);
/* Remove the run's directory and everything in it; no symlink is
 * followed, whatever the run did to its tree meanwhile. */
void	rundir_remove(const char *uuid);
/* The bytes the run's directory takes on disk (its blocks; no symlink
 * followed, RUNDIR_DEPTH_MAX levels); -1 if it cannot tell. */
int64_t	rundir_usage(const char *uuid);

#endif
