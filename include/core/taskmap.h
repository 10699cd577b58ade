/*
 * taskmap.h -- every task this node knows, by uuid (open addressing).
 */
#ifndef VOLERY_TASKMAP_H
#define VOLERY_TASKMAP_H

#include <stddef.h>
#include <stdint.h>

#include "depindex.h"

struct task;

/* A task and its uuid's hash (the upper half; the lower places it). */
struct taskmap_slot {
	struct task	*t;
	uint32_t	 hash;
};

struct taskmap {
	struct taskmap_slot *slots;
	size_t		  cap;		/* power of two, or 0 */
	size_t		  n;		/* live tasks */
	size_t		  used;		/* live + tombstones */
	struct depindex	  deps;		/* upstream -> dependents */
	/* Bumped by every insert and remove and by taskmap_touch (every
	 * change of a task is journaled, replicate_changed): equal
	 * generations, no task changed -- for what is derived from many. */
	uint64_t	  gen;
};

void		 taskmap_init(struct taskmap *);
void		 taskmap_free(struct taskmap *);	/* frees the tasks */
struct task	*taskmap_find(const struct taskmap *, const char *);
int		 taskmap_insert(struct taskmap *, struct task *);
struct task	*taskmap_remove(struct taskmap *, const char *);
/* A task of the map changed. */
void		 taskmap_touch(struct taskmap *);
size_t		 taskmap_count(const struct taskmap *);

/* Iterate: start with i = 0; returns NULL at the end. */
struct task	*taskmap_next(const struct taskmap *, size_t *);

/*
 * The tasks of these uuids that the map holds, each once, in the order
 * taskmap_next meets them; *count of them.  The caller frees the array
 * (NULL: none, or out of memory).  A walk over a few tasks that acts
 * as a walk over the whole map would.
 */
struct task	**taskmap_in_order(const struct taskmap *,
		    const char (*uuids)[UUID_STRLEN + 1], size_t n,
		    size_t *count);
/* Some task bound to outputs of `up` is still Submitted: it waits. */
int		 taskmap_awaits(const struct taskmap *, const char *up);
/* Does any task take an input from `up`? */
int		 taskmap_has_dependents(const struct taskmap *, const char *up);
/* The tasks bound to outputs of `up`, the same way. */
struct task	**taskmap_dependents(const struct taskmap *, const char *up,
		    size_t *count);

/* The tasks in submit order (oldest first); caller frees the array. */
struct task	**taskmap_sorted(const struct taskmap *, size_t *);
/* Some of the map's tasks, v[0..n), in taskmap_sorted's order. */
void		 taskmap_sort(struct task **v, size_t n);

#endif
