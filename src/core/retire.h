/*
 * retire.h -- finished tasks leave the map after the retention period:
 * their record goes to the history file (ACT_RETIRE), and the map, the
 * journal (at its next compaction) and the digests forget them.
 */
#ifndef VOLERY_RETIRE_H
#define VOLERY_RETIRE_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

struct node;
struct task;

/* A settled task and when it is due to leave. */
struct retire_due {
	int64_t	at;
	char	uuid[UUID_STRLEN + 1];
};

struct retire {
	struct retire_due	*heap;		/* earliest first */
	size_t			 n, cap;
	uint64_t		 retired;	/* tasks that left */
	uint64_t		 dropped;	/* records from peers, too old */
};

#define RETIRE_BATCH	256	/* tasks at most a housekeeping tick */
#define RETIRE_RECHECK_MS 60000 /* a task whose dependents run, again */

void	retire_free(struct node *);
/* After t changed (or was restored): once settled, it is due. */
void	retire_note(struct node *, const struct task *);
/* Every housekeeping tick: retire what is due, a batch at most. */
void	retire_housekeeping(struct node *, int64_t now);
/* After a restart: every task due, whatever their number. */
void	retire_recover(struct node *, int64_t now);
/* A record we do not hold: would we have retired it, or is it from a
 * node away for longer than the retention period?  Then it is dropped. */
int	retire_too_old(struct node *, const struct task *, int64_t now);

#endif
