/*
 * readyq.h -- the ready queue: interactive before low, older submit time
 * first, ties by uuid, so that every node orders it identically.  Low
 * tasks ready for longer than the ageing delay count as interactive.
 */
#ifndef VOLERY_READYQ_H
#define VOLERY_READYQ_H

#include <stddef.h>
#include <stdint.h>

struct task;

struct readyq {
	struct task	**v;
	size_t		  n;
	size_t		  cap;
	/* The next promotion, kept as tasks come and go so that a call
	 * with nothing due costs nothing (it comes after every event). */
	int		  due_valid;
	int64_t		  due_next;	/* -1: none */
	int64_t		  due_ageing;	/* the ageing_ms it is for */
};

void		 readyq_init(struct readyq *);
void		 readyq_free(struct readyq *);
int		 readyq_push(struct readyq *, struct task *);
int		 readyq_remove(struct readyq *, const struct task *);
struct task	*readyq_at(const struct readyq *, size_t);
size_t		 readyq_len(const struct readyq *);
int		 readyq_cmp(const struct task *, const struct task *);

/*
 * Promote the low tasks ready since `ageing_ms` or longer.  Returns the
 * time of the next promotion, or -1 if none is due.
 */
int64_t		 readyq_age(struct readyq *, int64_t now, int64_t ageing_ms);

#endif
