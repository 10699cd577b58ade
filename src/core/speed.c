/*
 * speed.c -- a node's effective speed, learned from its runs against the
 * pool's (placement.h): what its runs of each task type took over the
 * type's mean.
 */
#include "nodestate.h"

/*
 * Our speed: what our runs would have taken at the pool's average, over
 * what they took, as if we had also run PRIOR_RUNS at the average: a
 * few runs of uneven tasks tell little.  Rounded to 5 %, so that noise
 * does not reorder a pool of equal machines.
 */
#define PRIOR_RUNS 4
void
placement_learn_speed(struct placement *pl)
{
	double	expected = 0, took = 0, runs = 0, prior, s;
	int	i;

	for (i = 0; i < pl->ntypes; i++) {
		const struct placement_type *ty = &pl->types[i];
		if (ty->own_n == 0 || ty->pool_n == 0)
			continue;
		expected += (double)ty->own_n * ty->pool_ms / ty->pool_n;
		took += (double)ty->own_ms;
		runs += (double)ty->own_n;
	}
	if (took <= 0)
		return;
	prior = PRIOR_RUNS * expected / runs;	/* runs at speed 1 */
	s = (expected + prior) / (took + prior) * SPEED_UNIT;
	s = (double)((int64_t)(s / 50 + 0.5) * 50);
	pl->speed = s < SPEED_MIN ? SPEED_MIN : s > SPEED_MAX ? SPEED_MAX :
	    (int)s;
}
