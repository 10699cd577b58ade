/*
 * fit.h -- reliability fit (<placement>fit</placement>; the P2P HTC
 * thesis, chapter 4, BFGC): which of the next FIT_GROUP ready tasks an
 * idle node takes, so that long tasks go to the nodes likely to stay and
 * short ones to the nodes likely to leave.
 */
#ifndef VOLERY_FIT_H
#define VOLERY_FIT_H

#include <stddef.h>
#include <stdint.h>

struct node;
struct task;

#define FIT_GROUP	10	/* the thesis' look-ahead group, G */
#define FIT_SKIPS	10	/* a head passed over this often is taken */
#define FIT_LOST_MAX	30	/* lost runs that grow an estimate (x17) */

#include "bounds.h"

/* The head of the queue we last passed over, and how often in a row. */
struct fit {
	char	head[UUID_STRLEN + 1];
	int	skips;
};

/*
 * The queue position for us to take, from place (our rank among the
 * idle nodes, or after a lost race): with the fit, the task it assigns
 * us when place is within the group, else place moved past the group;
 * otherwise place.
 */
size_t	fit_place(struct node *, size_t place, int64_t now);
/* Node i's score for a run of est_ms (at the pool's average speed), as
 * a logarithm: higher fits better.  speed: per mille; life_s: its
 * expected rest of stay. */
double	fit_score(int64_t est_ms, int speed, int64_t life_s);
/* The run time the fit counts for t at the pool's average speed (its
 * l_j): its estimate, a tenth longer for each run of it lost, or its
 * type's learned one. */
int64_t	fit_length(const struct node *, const struct task *);

#endif
