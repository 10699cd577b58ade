/*
 * placement.h -- fault-aware placement (Anglano et al., "Fault-aware
 * scheduling for Bag-of-Tasks applications on Desktop Grids": choose
 * machines by effective speed and by how long they are likely to stay).
 *
 * Each node learns its effective speed -- its run times against the
 * pool's, per task type, from the confirmed runs every node sees -- and
 * its availability: the expected rest of its current volunteer period.
 * Both go out in its heartbeats.  Among idle nodes the one that would
 * finish the head of the queue first, and is likeliest to stay, ranks
 * first; a node leaves a task to the others when they would finish the
 * whole queue before it finished that one task.
 */
#ifndef VOLERY_PLACEMENT_H
#define VOLERY_PLACEMENT_H

#include <stdint.h>

#include "bounds.h"

struct node;
struct task;

#define PLACEMENT_TYPES	 64	/* task types learned, the first ones */
#define PLACEMENT_PERIODS 32	/* volunteer periods remembered */

/* What the pool's confirmed runs of one task type took. */
struct placement_type {
	char	exec[NAME_MAXLEN + 1];
	int64_t	pool_ms, pool_n;	/* every node's runs */
	int64_t	own_ms, own_n;		/* ours */
	int64_t	rank_ms;		/* what the queue counts; 0: none */
	/* Runs of tasks given an estimate: the estimates' sum, and what
	 * the runs took: how far off the submitters are, in this pool;
	 * the estimates of ours, and how many. */
	int64_t	est_ms, est_took_ms;
	int64_t	own_est_ms, own_est_n;
};

struct placement {
	struct placement_type	types[PLACEMENT_TYPES];
	int			ntypes;
	int			speed;		/* per mille, learned */
	int			kept_speed;	/* learned before our restart
						 * (stay.c); SPEED_UNIT: none */
	int64_t			period_start;	/* volunteering since; -1 */
	int64_t			periods[PLACEMENT_PERIODS];	/* ended ones */
	int			nperiods;	/* how many the ring holds */
	int			next_period;
	/* The expected stay our last heartbeat told: peers rank us by
	 * it, so we rank ourselves by it too, not by a fresher one. */
	int64_t			life_told;
	/* The task we last left to others, and since when. */
	char			deferred[UUID_STRLEN + 1];
	int64_t			deferred_since;
};

void	placement_init(struct node *);
/* t's end is confirmed here: learn from its run.  1 if what the queue
 * counts for its type moved (placement_rank_ms): rank again. */
int	placement_learn(struct node *, const struct task *);
/* We started or stopped volunteering. */
void	placement_volunteer(struct node *, int on, int64_t now);
/* What we learned of our periods or our speed changed: the shell keeps
 * it across a restart (ACT_STAY). */
void	placement_tell_stay(struct node *);
/* Our speed and the expected rest of our volunteer period (s; 0 when
 * not volunteering), for the heartbeat. */
int	placement_speed(const struct node *);
int64_t	placement_life_s(struct node *, int64_t now);
/* placement_life_s for a heartbeat: what the peers will rank us by. */
int64_t	placement_life_tell(struct node *, int64_t now);
/* A run of exec at speed: its expected time (ms), or -1 (never seen). */
int64_t	placement_estimate(const struct node *, const char *exec, int speed);
/* How submitters' estimates of exec's tasks are borne out here: what
 * their runs took over what they were said to take; 1 until one ran. */
double	placement_est_scale(const struct node *, const char *exec);
/* What running t costs a dequeue's batch of ours, in ms (its type's
 * estimate and BATCH_START_MS): -1 unknown. */
int64_t	placement_batch_cost(const struct node *, const struct task *);
/*
 * What the queue's lret and sret orders count for a run of exec (ms, at
 * the pool's average speed): its learned mean, moved only when the mean
 * drifts an eighth away from it, so that learning sorts the queue again
 * a few times per type, not at every run's end.  A type never seen
 * counts as RANK_UNKNOWN_MS: with nothing learned, the longest path in
 * time is the longest in tasks (Hu's rule).
 */
#define RANK_UNKNOWN_MS	1000
int64_t	placement_rank_ms(const struct node *, const char *exec);
/*
 * Does idle peer p rank before us?  Faster first, then the one likelier
 * to stay (its expected stay in doublings of seconds, as the heartbeats
 * told it, ours too: every node ranks from the same numbers), then by
 * name.  Blind: by name only.
 */
struct peer;
int	placement_peer_first(const struct node *, const struct peer *);
/* The same rank between two idle peers: negative if a goes first. */
int	placement_peers_cmp(const struct peer *, const struct peer *);
/* What our side of that comparison is now (a change: rank again). */
int	placement_key(const struct node *);
int	placement_life_bucket(int64_t life_s);
/*
 * Should we leave t (Ready) to others?  Then when to look again; -1 if
 * we take it.
 */
int64_t	placement_defer(struct node *, const struct task *, int64_t now);

#endif
