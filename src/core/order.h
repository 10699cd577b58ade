/*
 * order.h -- the ready queue's keys, derived alike on every node from the
 * tasks it knows (readyq.h says how they order the queue): each task's
 * workflow (its first submit time, whether it holds an interactive task)
 * and its longest path of tasks left and that path's expected run time
 * (for the lret and sret orders), and the order
 * in force: the node's, or its batch window's.
 */
#ifndef VOLERY_ORDER_H
#define VOLERY_ORDER_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "readyq.h"
#include "uuidmap.h"

struct node;
struct task;

/* A workflow with tasks in the map. */
struct order_wf {
	char	uuid[UUID_STRLEN + 1];	/* its first task's */
	size_t	ntasks;			/* in the map */
	int	urgent;			/* one was interactive */
	int64_t	first_submit_ms;
};

struct order {
	struct order_wf	*v;
	size_t		 n, cap;
	struct uuidmap	 index;		/* workflow uuid -> its entry in v */
};

void	order_free(struct node *);
/* t entered the map (not the queue yet): its keys, and its upstream's
 * longest paths.  -1: out of memory (t keeps keys of its own). */
int	order_added(struct node *, struct task *);
/* t is leaving the map. */
void	order_removed(struct node *, const struct task *);
/* Record r took old's place in the map (r NULL: it could not): old's
 * workflow keeps its entry and its urgency. */
void	order_replaced(struct node *, const struct task *old, struct task *r);
/* What the pool learned of a task type's run time moved
 * (placement_learn): every path's time is summed again. */
void	order_rerank(struct node *);
/* Queue t (Ready, bound) with its workflow's keys of now. */
int	order_queue(struct node *, struct task *);
/* The order in force: a batch window's own (not ORDER_NODE), else the
 * node's. */
void	order_set_window(struct node *, int window_order);

#endif
