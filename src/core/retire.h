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
#include "uuidmap.h"

struct node;
struct task;

/* A task and when it is due to leave: settled, or given up. */
struct retire_due {
	int64_t	at;
	char	uuid[UUID_STRLEN + 1];
	int	giveup;		/* not ended 2 x retention after scheduled */
};

/* A task that left: a late record of it is not taken in again. */
struct retire_tomb {
	char	uuid[UUID_STRLEN + 1];
	int64_t	until;
};

struct retire {
	struct retire_due	*heap;		/* earliest first */
	size_t			 n, cap;
	/* Tombstones, for one more retention period: a set by uuid, and
	 * the same in the order they expire (a ring). */
	struct uuidmap		 tombs;		/* uuid -> until */
	struct retire_tomb	*ring;
	size_t			 rhead, rn, rcap;
	uint64_t		 retired;	/* tasks that left */
	uint64_t		 dropped;	/* records from peers, too old */
};

#define RETIRE_BATCH	256	/* tasks at most a housekeeping tick */
#define RETIRE_RECHECK_MS 1000	/* a task whose process is stopping */

void	retire_free(struct node *);
/* A task new to the map: given up if it has not ended two retention
 * periods after it was scheduled. */
void	retire_track(struct node *, const struct task *);
/* After t changed (or was restored): once settled, it is due. */
void	retire_note(struct node *, const struct task *);
/* Every housekeeping tick: retire what is due, a batch at most. */
void	retire_housekeeping(struct node *, int64_t now);
/* When housekeeping next has a task to retire or a tombstone to drop;
 * -1: never. */
int64_t	retire_next_due(const struct node *);
/* After a restart: every task due, whatever their number. */
void	retire_recover(struct node *, int64_t now);
/*
 * A record from peer `sender` of a task we do not hold: did it leave
 * already (told so: RETIRED), or would it leave at once?  Then it is
 * dropped (1).
 */
int	retire_too_old(struct node *, const struct task *, const char *sender,
	    int64_t now);
/* RETIRED: our copy of a task the pool retired is stale. */
struct peer_msg;
void	retire_recv_retired(struct node *, const struct peer_msg *,
	    int64_t now);

#endif
