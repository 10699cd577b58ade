/*
 * speed.c -- a node's effective speed, learned from its runs against the
 * pool's (placement.h): what its runs of each task type took over the
 * type's mean, told apart from the average only when the runs say so.
 */
#include "nodestate.h"

/*
 * Our speed: what our runs would have taken at the pool's average, over
 * what they took, as if we had also run PRIOR_RUNS at the average: a
 * few runs of uneven tasks tell little.  Rounded to 5 %, so that noise
 * does not reorder a pool of equal machines.
 *
 * And the average until our runs tell us apart from it: from the third
 * on, their times over their type's mean differ from 1 by three
 * standard errors of their own spread.  Tasks of one type but of uneven
 * lengths (1 s to 150 s) made equal machines look twice as fast or slow,
 * and idle ones left work to "faster" busy ones.  Their own spread, not
 * the pool's: the pool's speeds spread the pool's runs, and machines of
 * speeds 1 to 40 were then told apart too late.  Against the type's mean
 * now, not when each ran: the first runs to end are the short ones.
 */
#define PRIOR_RUNS	4
#define TOLD_RUNS	3
static int
told_apart(const struct placement *pl)
{
	double	runs = 0, rsum = 0, rsq = 0, m, var;
	int	i;

	for (i = 0; i < pl->ntypes; i++) {
		const struct placement_type *ty = &pl->types[i];
		double mean;
		if (ty->own_n == 0 || ty->pool_n == 0)
			continue;
		mean = (double)ty->pool_ms / (double)ty->pool_n;
		rsum += (double)ty->own_ms / mean;
		rsq += ty->own_sq / (mean * mean);
		runs += (double)ty->own_n;
	}
	if (runs < TOLD_RUNS)
		return 0;
	m = rsum / runs;
	var = (rsq - runs * m * m) / (runs - 1);
	return (m - 1) * (m - 1) * runs >= 9 * var;
}

void
placement_learn_speed(struct placement *pl)
{
	double	expected = 0, took = 0, runs = 0, prior, s;
	int	i;

	if (!told_apart(pl)) {
		pl->speed = SPEED_UNIT;
		return;
	}
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
