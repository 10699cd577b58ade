/*
 * readyq.h -- the ready queue, ordered identically on every node that
 * knows the same tasks:
 *
 *   1. interactive first: a task that is interactive, was aged (ready
 *      for longer than the ageing delay) or belongs to a workflow with
 *      an interactive task (order.c: the workflow is as urgent as its
 *      most urgent task, so an interactive task's upstream is too);
 *   2. with the lret order only, before 1: the longest expected run
 *      time left on a path from the task first (Hu's rule in time; the
 *      residual-time LRET of Anglano et al.: the shortest total
 *      makespan of a batch); with sret, the shortest first (the most
 *      tasks done soonest); with the fairshare order, the task of the
 *      user who used the pool least lately (fairshare.h);
 *   3. a task with a deadline (volery run --deadline) before those
 *      without, the least slack first: the latest time it may start,
 *      its deadline less the run time left on its path; one forecast
 *      at submit to miss it goes as a task without (deadline_late);
 *   4. the older workflow first (fcfs: the shortest average makespan
 *      of the workflows), then the older task;
 *   5. ties by uuid.
 */
#ifndef VOLERY_READYQ_H
#define VOLERY_READYQ_H

#include <stddef.h>
#include <stdint.h>

struct task;

enum queue_order {
	ORDER_FCFS,	/* by workflow submission (the default) */
	ORDER_LRET,	/* longest remaining run time first, then fcfs */
	ORDER_FAIRSHARE, /* the least used user first, then fcfs */
	ORDER_SRET,	/* shortest remaining run time first, then fcfs */
};
#define ORDER_NODE (-1)	/* a batch window without its own order */
#define ORDER_NAMES "fcfs, lret, sret or fairshare"	/* for errors */

struct readyq {
	struct task	**v;
	size_t		  n;
	size_t		  cap;
	enum queue_order  order;
	uint64_t	  pushes;	/* tasks ever pushed (fairshare.c) */
	/* The queued tasks ageing may promote, a min-heap by ready_ms:
	 * the next promotion is at its top, so that a call with nothing
	 * due costs nothing (it comes after every event) and a task's
	 * coming and going costs a log, however many wait. */
	struct task	**age;
	size_t		  age_n;
	size_t		  age_cap;
	/* The queued tasks keep() takes (this node could ever run them),
	 * in the queue's order: a look for one to run walks these, not
	 * the tasks that wait for a tag or a size only others have.  No
	 * keep(): every task. */
	int		(*keep)(const void *, const struct task *);
	const void	 *keep_ctx;
	struct task	**fit;
	size_t		  nfit;
	size_t		  capfit;
};

void		 readyq_init(struct readyq *);
void		 readyq_free(struct readyq *);
int		 readyq_push(struct readyq *, struct task *);
int		 readyq_remove(struct readyq *, const struct task *);
struct task	*readyq_at(const struct readyq *, size_t);
size_t		 readyq_len(const struct readyq *);
int		 readyq_cmp(const struct readyq *, const struct task *,
		    const struct task *);
/* Which tasks the fit sub-queue holds (set while the queue is empty). */
void		 readyq_set_keep(struct readyq *,
		    int (*)(const void *, const struct task *), const void *);
/* The fit sub-queue: its length, its i-th task, the index in it of the
 * first task at queue position k or after, and a queued task's
 * position in the whole queue. */
size_t		 readyq_fit_len(const struct readyq *);
struct task	*readyq_fit_at(const struct readyq *, size_t);
size_t		 readyq_fit_from(const struct readyq *, size_t k);
size_t		 readyq_pos(const struct readyq *, const struct task *);
/* The tasks' keys changed (order.c): sort again. */
void		 readyq_resort(struct readyq *);
void		 readyq_set_order(struct readyq *, enum queue_order);
int		 readyq_order_parse(const char *, enum queue_order *);

/*
 * Promote the low tasks ready since `ageing_ms` or longer.  Returns the
 * time of the next promotion, or -1 if none is due.
 */
int64_t		 readyq_age(struct readyq *, int64_t now, int64_t ageing_ms);

#endif
