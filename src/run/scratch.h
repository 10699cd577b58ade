/*
 * scratch.h -- a run's scratch space bounded: its run directory (its
 * working directory if described, its TMPDIR always) may hold at most
 * <max_scratch_mb>.  Measured every SCRATCH_CHECK_MS while it runs (a
 * walk of its tree, only while runs run) and once as it ends; a run
 * over it fails, finally (another attempt would fill it too).
 */
#ifndef VOLERY_SCRATCH_H
#define VOLERY_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct scratch;

#define SCRATCH_CHECK_MS	5000

/* Runs may hold max_bytes each (0: any). */
void	scratch_init(struct event_base *, int64_t max_bytes);
/* Watch the run uuid's directory; NULL if there is no bound (or no
 * memory: then it is only looked at as it ends); over(why, arg) is
 * called when it is found over while it runs. */
struct scratch *scratch_watch(const char *uuid,
	    void (*over)(const char *why, void *), void *arg);
/* Over the bound now?  1 with why (once found over, it stays so). */
int	scratch_over(const char *uuid, struct scratch *, char *why,
	    size_t whylen);
void	scratch_free(struct scratch *);

#endif
