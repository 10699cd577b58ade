/*
 * estimate.h -- when a task should end: what its type took before (the
 * pool's confirmed runs, placement.c), scaled by the speed of the node
 * that runs it, or of an average node while it waits.
 */
#ifndef VOLERY_ESTIMATE_H
#define VOLERY_ESTIMATE_H

#include <stdint.h>

struct node;
struct task;

/* Its run's expected length (ms) where it runs or would; -1: its type
 * never ran to a confirmed end here. */
int64_t	estimate_run_ms(const struct node *, const struct task *);

#endif
