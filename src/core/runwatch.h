/*
 * runwatch.h -- watching runs (runwatch.c): PROGRESS heartbeats, failure
 * detection of remote runs, duplicate runs, unacknowledged ENQUEUEs.
 */
#ifndef VOLERY_RUNWATCH_H
#define VOLERY_RUNWATCH_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "uuidlist.h"

struct node;
struct peer_msg;
struct task;

struct runwatch {
	/* The tasks housekeeping looks at: Running or unacked (and some
	 * that were, pruned at the next look), not the whole map. */
	struct uuidlist	 watched;
	uint64_t	 duplicates;	/* our runs stopped as duplicates */
};

void	runwatch_free(struct node *);
uint64_t runwatch_duplicates(const struct node *);
/* t may be Running or unacked: housekeeping looks at it. */
void	runwatch_watch(struct node *, const struct task *);
/* The uuids watched (a superset of the Running and unacked tasks). */
const char (*runwatch_watched(const struct node *,
	    size_t *count))[UUID_STRLEN + 1];
/* The Running tasks, in map order (a walk of the whole map would meet
 * them so); the caller frees the array. */
struct task **runwatch_running(const struct node *, size_t *count);
/*
 * A peer runs (or ran) a task we run too: the run started first stays,
 * ties to the lower name.  Returns 1 if ours stays.
 */
int	runwatch_resolve_duplicate(struct node *, struct task *,
	    const char *other, int other_progress, int64_t other_start,
	    int64_t now);
void	runwatch_recv_progress(struct node *, const struct peer_msg *,
	    int64_t now);
/* Every progress interval: our runs' PROGRESS, silent remote runs back
 * to Ready, unacknowledged ENQUEUEs again. */
void	runwatch_housekeeping(struct node *, int64_t now);
/* Runs or unacknowledged tasks to watch on each housekeeping beat. */
int	runwatch_watching(const struct node *);

#endif
