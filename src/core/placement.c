/*
 * placement.c -- fault-aware placement: what this node learns of its own
 * speed (its expected stay: stay.c), and how the idle nodes rank and
 * defer by what they learn of each other (placement.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"

int
placement_mode_parse(const char *s, enum placement_mode *mode)
{
	if (strcmp(s, "informed") == 0)
		*mode = PLACEMENT_INFORMED;
	else if (strcmp(s, "blind") == 0)
		*mode = PLACEMENT_BLIND;
	else if (strcmp(s, "fit") == 0)
		*mode = PLACEMENT_FIT;
	else
		return -1;
	return 0;
}

void
placement_init(struct node *n)
{
	n->placement.speed = SPEED_UNIT;
	n->placement.kept_speed = SPEED_UNIT;
	n->placement.period_start = -1;
}

static struct placement_type *
find_type(struct placement *pl, const char *exec, int add)
{
	int	i;

	for (i = 0; i < pl->ntypes; i++)
		if (strcmp(pl->types[i].exec, exec) == 0)
			return &pl->types[i];
	if (!add || pl->ntypes == PLACEMENT_TYPES)
		return NULL;
	memset(&pl->types[pl->ntypes], 0, sizeof pl->types[0]);
	memcpy(pl->types[pl->ntypes].exec, exec, sizeof pl->types[0].exec);
	return &pl->types[pl->ntypes++];
}

/*
 * Our speed: what our runs would have taken at the pool's average, over
 * what they took, as if we had also run PRIOR_RUNS at the speed we had
 * learned before our restart (the average if none): a few runs of
 * uneven tasks tell little, and a desktop switched off every evening is
 * no faster in the morning.  A run given an estimate would
 * have taken its estimate as the pool bears them out (one long task and
 * one short of a type are not the average twice).  Rounded to 5 %, so
 * that noise does not reorder a pool of equal machines.
 */
#define PRIOR_RUNS 4
static void
learn_speed(struct placement *pl)
{
	double	expected = 0, took = 0, runs = 0, prior, s;
	int	i;

	for (i = 0; i < pl->ntypes; i++) {
		const struct placement_type *ty = &pl->types[i];
		if (ty->own_n == 0 || ty->pool_n == 0)
			continue;
		expected += (double)(ty->own_n - ty->own_est_n) * ty->pool_ms /
		    ty->pool_n;
		if (ty->own_est_n > 0)	/* then est_ms > 0: ours count */
			expected += (double)ty->own_est_ms * ty->est_took_ms /
			    ty->est_ms;
		took += (double)ty->own_ms;
		runs += (double)ty->own_n;
	}
	if (took <= 0)
		return;
	prior = PRIOR_RUNS * expected / runs;	/* runs at speed 1 */
	s = (expected + prior) / (took + (pl->kept_speed == SPEED_UNIT ? prior :
	    prior * SPEED_UNIT / pl->kept_speed)) * SPEED_UNIT;
	s = (double)((int64_t)(s / 50 + 0.5) * 50);
	pl->speed = s < SPEED_MIN ? SPEED_MIN : s > SPEED_MAX ? SPEED_MAX :
	    (int)s;
}

int
placement_learn(struct node *n, const struct task *t)
{
	struct placement_type	*ty;
	int64_t			 took = t->end_ms - t->start_ms, mean;
	int			 speed;

	if (t->state != TASK_TERMINATED || t->start_ms < 0 || took <= 0 ||
	    took > INT64_MAX / 1024 ||
	    (ty = find_type(&n->placement, t->exec, 1)) == NULL)
		return 0;
	ty->pool_ms += took;
	ty->pool_n++;
	if (t->est_ms > 0) {
		ty->est_ms += t->est_ms;
		ty->est_took_ms += took;
	}
	if (strcmp(t->running_on, n->cfg.name) == 0) {
		ty->own_ms += took;
		ty->own_n++;
		if (t->est_ms > 0) {
			ty->own_est_ms += t->est_ms;
			ty->own_est_n++;
		}
		speed = n->placement.speed;
		learn_speed(&n->placement);
		if (n->placement.speed != speed)
			placement_tell_stay(n);
	}
	mean = ty->pool_ms / ty->pool_n;
	if (ty->rank_ms > 0 && llabs(mean - ty->rank_ms) * 8 <= ty->rank_ms)
		return 0;
	ty->rank_ms = mean > 0 ? mean : 1;
	return 1;
}

int
placement_speed(const struct node *n)
{
	return n->placement.speed;
}

int64_t
placement_estimate(const struct node *n, const char *exec, int speed)
{
	const struct placement_type *ty = find_type(
	    (struct placement *)&n->placement, exec, 0);

	if (ty == NULL || ty->pool_n == 0 || speed <= 0)
		return -1;
	return ty->pool_ms / ty->pool_n * SPEED_UNIT / speed;
}

double
placement_est_scale(const struct node *n, const char *exec)
{
	const struct placement_type *ty = find_type(
	    (struct placement *)&n->placement, exec, 0);

	return ty == NULL || ty->est_ms <= 0 || ty->est_took_ms <= 0 ? 1 :
	    (double)ty->est_took_ms / (double)ty->est_ms;
}

int64_t
placement_batch_cost(const struct node *n, const struct task *t)
{
	int64_t	run = estimate_task_ms(n, t, placement_speed(n));

	return run < 0 ? -1 : run + BATCH_START_MS;
}

int64_t
placement_rank_ms(const struct node *n, const char *exec)
{
	const struct placement_type *ty = find_type(
	    (struct placement *)&n->placement, exec, 0);

	return ty != NULL && ty->rank_ms > 0 ? ty->rank_ms : RANK_UNKNOWN_MS;
}

/* A peer's speed, as a divisor: one not heard yet counts as average. */
static int
speed_of(const struct peer *p)
{
	return p->speed > 0 ? p->speed : SPEED_UNIT;
}

/* Speeds a fifth apart or more differ; closer ones may be noise. */
static int
speed_class(int speed)
{
	int	c = 0;

	for (; speed > SPEED_UNIT * 6 / 5; speed = speed * 5 / 6)
		c++;
	for (; speed < SPEED_UNIT * 5 / 6; speed = speed * 6 / 5)
		c--;
	return c;
}

int
placement_life_bucket(int64_t life_s)
{
	int	b = 0;

	while (life_s > 0) {
		life_s >>= 1;
		b++;
	}
	return b;
}

int
placement_peer_first(const struct node *n, const struct peer *p)
{
	int	me, it;

	if (n->cfg.placement == PLACEMENT_BLIND)
		return p->name_before_us;
	if (speed_class(speed_of(p)) != speed_class(n->placement.speed))
		return speed_of(p) > n->placement.speed;
	me = placement_life_bucket(n->placement.life_told);
	it = placement_life_bucket(p->life_s);
	if (it != me)
		return it > me;
	return p->name_before_us;
}

int
placement_peers_cmp(const struct peer *a, const struct peer *b)
{
	int	x = speed_class(speed_of(a)), y = speed_class(speed_of(b));

	if (x != y)
		return y - x;
	x = placement_life_bucket(a->life_s);
	y = placement_life_bucket(b->life_s);
	return x != y ? y - x : strcmp(a->name, b->name);
}

int
placement_key(const struct node *n)
{
	if (n->cfg.placement == PLACEMENT_BLIND)
		return 0;
	return speed_class(n->placement.speed) * 64 +
	    placement_life_bucket(n->placement.life_told);
}

/* Only a clearly faster node that takes tasks is left one: speeds
 * learned from uneven runs are a little off. */
static int
faster_peer(const struct node *n, const struct peer *p)
{
	return p != NULL && peerrun_takes_tasks(p) &&
	    speed_class(speed_of(p)) > speed_class(n->placement.speed);
}

/* How long a run of base ms (at the pool's speed) takes at speed: at
 * least 1 ms, so that trivial tasks on fast nodes divide nothing by 0. */
static int64_t
run_ms(int64_t base, int speed)
{
	int64_t	d = base * SPEED_UNIT / speed;

	return d > 0 ? d : 1;
}

/* A run of d ms that would outlast the node's expected stay reruns. */
static int64_t
with_risk(int64_t d, int64_t life_s)
{
	return life_s * 1000 < d ? 2 * d : d;
}

int64_t
placement_defer(struct node *n, const struct task *t, int64_t now)
{
	struct task	**run;
	int64_t		 base, mine, horizon, wake = -1, capacity = 0;
	int64_t		*busy;
	size_t		 i, nrun, npeers = peertab_count(n);

	if (n->cfg.placement == PLACEMENT_BLIND ||
	    (base = estimate_task_ms(n, t, SPEED_UNIT)) <= 0)
		return -1;
	mine = with_risk(run_ms(base, n->placement.speed),
	    placement_life_s(n, now));
	/* We left it to others as long as we would take: they did not. */
	if (strcmp(n->placement.deferred, t->uuid) != 0) {
		memcpy(n->placement.deferred, t->uuid, sizeof t->uuid);
		n->placement.deferred_since = now;
	} else if (now - n->placement.deferred_since >= mine)
		return -1;
	horizon = now + mine;
	/* Most dispatches, and every one in a pool of equal machines: no
	 * clearly faster node to leave it to, nothing to reckon. */
	for (i = 0; i < npeers; i++)
		if (faster_peer(n, peertab_at(n, (int)i)) &&
		    capset_peer_can(n, peertab_at(n, (int)i), t))
			break;
	if (i == npeers)
		return -1;
	/* When each busy peer should be free: its earliest run's end. */
	if ((busy = calloc(npeers + 1, sizeof *busy)) == NULL)
		return -1;
	run = runwatch_running(n, &nrun);
	for (i = 0; i < nrun; i++) {
		int k = peertab_index(n, run[i]->running_on);
		const struct peer *p = peertab_at(n, k);
		int64_t end;
		if (p == NULL || run[i]->start_ms < 0 ||
		    (end = estimate_task_ms(n, run[i], speed_of(p))) < 0)
			continue;
		end += run[i]->start_ms;
		if (busy[k] == 0 || end < busy[k])
			busy[k] = end;
	}
	free(run);
	for (i = 0; i < npeers; i++) {
		const struct peer *p = peertab_at(n, (int)i);
		int64_t d, free_at;
		if (!faster_peer(n, p) || !capset_peer_can(n, p, t))
			continue;
		d = run_ms(base, speed_of(p));
		if (p->life_s * 1000 < d)
			continue;	/* it would likely be taken back */
		if (peerrun_is_idle(p))
			free_at = now;
		else if ((free_at = busy[i]) == 0)
			continue;	/* unknown: not counted */
		else if (free_at < now)
			/* Late on the mean by x: expect x more.  Half the
			 * runs are late, most of them a little; one late by
			 * a lot has long work, and stops counting soon. */
			free_at = now + (now - free_at);
		if (free_at + d > horizon)
			continue;
		capacity += (horizon - free_at) / d;
		if (free_at > now && (wake < 0 || free_at < wake))
			wake = free_at;
	}
	free(busy);
	if (capacity < (int64_t)readyq_len(&n->ready))
		return -1;
	/* The others finish the whole queue first: look again when a busy
	 * one should be free, or once we left it as long as we'd take. */
	horizon = n->placement.deferred_since + mine;
	if (wake < 0 || wake > horizon)
		wake = horizon;
	return wake > now ? wake : now + 1;
}
