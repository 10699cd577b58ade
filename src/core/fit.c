/*
 * fit.c -- reliability fit (fit.h).  Node i scores task j by the
 * thesis' f2 (eq. 4.9): the chance that i stays as long as j runs, over
 * how far j's run is from i's expected stay, |l_j / E_i - 1|, with an
 * exponential law -- best when the run just fits the stay.  l_j is the
 * task's run time at i's speed: its submitter's estimate as the pool
 * bears such estimates out (estimate_task_ms), grown by a tenth
 * for each run of it that was lost (the thesis' BFGCE: a task that
 * keeps being taken back was longer than said, so it goes to a steadier
 * node next), or else its type's learned one (placement_rank_ms); E_i
 * the rest of i's volunteer period it told in its heartbeat.
 *
 * In the thesis the nodes compete for a task with their scores.  Here
 * the idle nodes derive one assignment from the same heartbeats instead:
 * in their placement rank (faster, then steadier, first), each takes the
 * best-scored task of the group the ones before it left; the dequeue's
 * rule of one queue position per node then keeps them from colliding.
 * Skip limit: a node that passed over the same head of the queue
 * FIT_SKIPS times takes it whatever it scores, so no task starves
 * behind better-fitting ones.
 */
#include <float.h>
#include <string.h>

#include "nodestate.h"

/*
 * ln x for x > 0, by arithmetic alone (x = m 2^e, ln m = 2 atanh((m - 1)
 * / (m + 1)), a series in z^2 <= 1/9): the same bits on every node and
 * platform, so that all derive the same assignment, and no libm.
 */
static double
ln(double x)
{
	double	z, z2, term, sum = 0;
	int	e = 0, k;

	for (; x >= 2; x /= 2)
		e++;
	for (; x < 1; x *= 2)
		e--;
	z = (x - 1) / (x + 1);
	z2 = z * z;
	for (k = 1, term = z; k < 40; k += 2, term *= z2)
		sum += term / k;
	return 2 * sum + e * 0.69314718055994530942;
}

double
fit_score(int64_t est_ms, int speed, int64_t life_s)
{
	double	l, e, r;

	l = (double)est_ms * SPEED_UNIT / (speed > 0 ? speed : SPEED_UNIT);
	e = (double)(life_s > 1 ? life_s : 1) * 1000;
	r = l / e;
	if (r > 1 - 1e-9 && r < 1 + 1e-9)
		return DBL_MAX;		/* a perfect fit */
	/* ln(exp(-r) / |r - 1|) */
	return -r - ln(r > 1 ? r - 1 : 1 - r);
}

int64_t
fit_length(const struct node *n, const struct task *t)
{
	int64_t	l;
	int	k;

	if (t->est_ms <= 0)
		return placement_rank_ms(n, t->exec);
	l = estimate_task_ms(n, t, SPEED_UNIT);
	/* Every node reads the same attempts in the record: the same l. */
	for (k = 0; k < t->attempts && k < FIT_LOST_MAX && l < TASK_EST_MAX;
	    k++)
		l += l / 10;
	return l;
}

/* The best-scored task of the group not taken yet. */
static int
best_left(const int64_t *est, const int *taken, size_t ng, int speed,
    int64_t life_s)
{
	double	best = 0, s;
	size_t	j;
	int	pick = -1;

	for (j = 0; j < ng; j++) {
		if (taken[j])
			continue;
		s = fit_score(est[j], speed, life_s);
		if (pick < 0 || s > best) {
			best = s;
			pick = (int)j;
		}
	}
	return pick;
}

/* The first `want` idle peers ranked before us, in rank order. */
static size_t
peers_before(struct node *n, const struct peer **v, size_t want)
{
	const struct peer	*p;
	size_t			 i, k, nv = 0;

	for (i = 0; i < peertab_count(n); i++) {
		if ((p = peertab_at(n, (int)i)) == NULL || !p->counted_first)
			continue;
		for (k = nv; k > 0 && placement_peers_cmp(p, v[k - 1]) < 0;
		    k--)
			;
		if (k >= want)
			continue;
		if (nv < want)
			nv++;
		memmove(&v[k + 1], &v[k], (nv - 1 - k) * sizeof *v);
		v[k] = p;
	}
	return nv;
}

size_t
fit_place(struct node *n, size_t place, int64_t now)
{
	const struct peer	*before[FIT_GROUP];
	const struct task	*t;
	size_t			 pos[FIT_GROUP], ng = 0, k, np;
	int64_t			 est[FIT_GROUP];
	int			 taken[FIT_GROUP] = { 0 }, pick;

	if (n->cfg.placement != PLACEMENT_FIT)
		return place;
	for (k = 0; k < readyq_len(&n->ready) && ng < FIT_GROUP; k++) {
		t = readyq_at(&n->ready, k);
		if (dequeue_taken(n, t->uuid, now))
			continue;
		pos[ng] = k;
		est[ng++] = fit_length(n, t);
	}
	if (ng < 2)
		return place;
	if (place >= ng)	/* the group goes to the nodes before us */
		return place + (pos[ng - 1] + 1 - ng);
	np = peers_before(n, before, place);
	for (k = 0; k < np; k++)
		if ((pick = best_left(est, taken, ng, before[k]->speed,
		    before[k]->life_s)) >= 0)
			taken[pick] = 1;
	pick = best_left(est, taken, ng, placement_speed(n),
	    n->placement.life_told);
	if (pick > 0 && !taken[0]) {	/* we pass the head over */
		t = readyq_at(&n->ready, pos[0]);
		if (strcmp(n->fit.head, t->uuid) != 0) {
			memcpy(n->fit.head, t->uuid, sizeof n->fit.head);
			n->fit.skips = 0;
		}
		if (++n->fit.skips > FIT_SKIPS)
			pick = 0;
	}
	return pick >= 0 ? pos[pick] : place;
}
