/*
 * taskmap.h -- every task this node knows, by uuid (open addressing).
 */
#ifndef VOLERY_TASKMAP_H
#define VOLERY_TASKMAP_H

#include <stddef.h>

struct task;

struct taskmap {
	struct task	**slots;
	size_t		  cap;		/* power of two, or 0 */
	size_t		  n;		/* live tasks */
	size_t		  used;		/* live + tombstones */
};

void		 taskmap_init(struct taskmap *);
void		 taskmap_free(struct taskmap *);	/* frees the tasks */
struct task	*taskmap_find(const struct taskmap *, const char *);
int		 taskmap_insert(struct taskmap *, struct task *);
struct task	*taskmap_remove(struct taskmap *, const char *);
size_t		 taskmap_count(const struct taskmap *);

/* Iterate: start with i = 0; returns NULL at the end. */
struct task	*taskmap_next(const struct taskmap *, size_t *);

/* The tasks in submit order (oldest first); caller frees the array. */
struct task	**taskmap_sorted(const struct taskmap *, size_t *);

#endif
