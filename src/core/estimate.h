/*
 * estimate.h -- every task's expected end with queueing counted, for
 * what people look at (`tasks`, `watch`, the dashboard): the ready queue
 * played once on the pool's slots, each waiting task after its inputs'
 * played ends (estimate.c).  Kept while the map is unchanged; played
 * again when asked after a change, but not sooner than a millisecond
 * per ESTIMATE_TASKS_PER_MS tasks queued after the last play: views
 * cost a bounded share of the node's time however much waits and
 * however fast it changes.  A task newer than the board shows the end
 * its inputs allow until the next play.
 */
#ifndef VOLERY_ESTIMATE_H
#define VOLERY_ESTIMATE_H

#include <stdint.h>

#include "uuidmap.h"

#define ESTIMATE_TASKS_PER_MS	50	/* queued tasks a play waits a ms for */
#define ESTIMATE_KEEP_MS	1000	/* an unchanged map: time moves runs */

struct node;
struct task;

struct estimate {
	struct uuidmap	ends;		/* uuid -> its end (-1: none known) */
	uint64_t	digest;		/* of the map played */
	int64_t		at;		/* when it was played */
	int		played;		/* 0: never */
};

void	estimate_free(struct node *);
/* t's run at speed: its submitter's estimate where it has one (Anglano
 * et al.'s and the P2P HTC thesis' knowledge of each task's length),
 * scaled by how its program's runs bore such estimates out
 * (placement_est_scale); else its type's (placement_estimate), or -1. */
int64_t	estimate_task_ms(const struct node *, const struct task *, int speed);
/* What the lret and sret orders count for t: its estimate as given where
 * it has one (the same on every node, comparable between one submitter's
 * tasks), else its type's placement_rank_ms. */
int64_t	estimate_task_rank_ms(const struct node *, const struct task *);

#endif
