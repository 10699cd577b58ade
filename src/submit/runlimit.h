/*
 * runlimit.h -- a time limit (or a run-time estimate) as people write
 * it: Slurm's forms (a bare number is minutes; MM:SS, HH:MM:SS,
 * D-HH[:MM[:SS]]) and 90s, 10m, 2h, 1d.
 */
#ifndef VOLERY_RUNLIMIT_H
#define VOLERY_RUNLIMIT_H

#include <stddef.h>
#include <stdint.h>

/* The limit in seconds (at least 1, at most a year), or -1 with err. */
int	runlimit_parse(const char *, int64_t *secs, char *err, size_t errlen);

#endif
