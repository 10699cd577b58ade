/*
 * arrivals.c -- workloads that arrive over time (Poisson): E2's single
 * tasks and E4's jobs with deadlines.  See arrivals.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrivals.h"
#include "task.h"

/* Polo's job sizes: lognormal of mean 62 and deviation 15.5 tasks. */
#define JOB_TASKS_MEAN	62.0
#define JOB_TASKS_SD	15.5
#define JOB_CLASSES	4
/* Counted: the arrivals in the middle (Polo's steady state, the 5 days
 * of 7 in the middle), the first and last tenth left out. */
#define EDGE_PERCENT	10

struct arrival {
	int64_t	 at;
	int	 node;		/* submitted on */
	int	 ntasks;
	int	 cls;		/* -w jobs: its class, its tasks' exec */
	int64_t	 deadline;	/* -w jobs: absolute, as drawn */
	int64_t	 forecast;	/* the node's at submit: the job's end */
	int	 first;		/* its tasks' index in u */
};

static const char *const class_exec[JOB_CLASSES] = {
	"mr1", "mr2", "mr3", "mr4"
};
static int64_t	class_ms[JOB_CLASSES];	/* task_ms x 0.5, 1, 1.5, 2 */
static int64_t	poisson_max_ms;

static double
draw(struct simnet *s)
{
	return ((double)(sim_random(s) >> 11) + 0.5) / (double)(1ULL << 53);
}

static double
exponential(struct simnet *s, double mean)
{
	return -mean * log(draw(s));
}

/* Lognormal of mean m and deviation sd (Box-Muller). */
static double
lognormal(struct simnet *s, double m, double sd)
{
	double	v = log(1 + sd * sd / (m * m)), mu = log(m) - v / 2;
	double	g = sqrt(-2 * log(draw(s))) * cos(6.283185307179586 * draw(s));

	return exp(mu + sqrt(v) * g);
}

int64_t
arrivals_duration(struct simnet *s, const char *exec)
{
	int	c;

	for (c = 0; c < JOB_CLASSES; c++)
		if (strcmp(exec, class_exec[c]) == 0)
			return class_ms[c];
	return 1 + (int64_t)(sim_random(s) % (uint64_t)poisson_max_ms);
}

static void
grow(struct arrivals *a, int n, int nodes, int64_t start)
{
	memset(a, 0, sizeof *a);
	a->v = sim_calloc((size_t)n, sizeof *a->v);
	a->n = n;
	a->nodes = nodes;
	a->last_end = start;
}

void
arrivals_poisson(struct arrivals *a, struct simnet *s, int ntasks,
    int nodes, double load, int64_t max_ms, int64_t start)
{
	/* Tasks a ms, for `load` of the slots busy on average. */
	double	mean_ms = (1 + (double)max_ms) / 2;
	double	rate = load * nodes * s->cfg.slots / mean_ms;
	double	at = (double)start;
	int	k;

	grow(a, ntasks, nodes, start);
	poisson_max_ms = max_ms > 0 ? max_ms : 1;
	for (k = 0; k < ntasks; k++) {
		at += exponential(s, 1 / rate);
		a->v[k].at = (int64_t)at;
		a->v[k].node = (int)(sim_random(s) % (uint64_t)nodes);
		a->v[k].ntasks = 1;
		a->v[k].first = k;
		if (a->v[k].at + max_ms > a->last_end)
			a->last_end = a->v[k].at + max_ms;
	}
	a->total = ntasks;
}

void
arrivals_jobs(struct arrivals *a, struct simnet *s, int njobs, int nodes,
    double load, double fmax, int tell, int64_t task_ms, int64_t start)
{
	double	mean_len = 0, rate, at = (double)start;
	int	c, k;

	grow(a, njobs, nodes, start);
	a->jobs = 1;
	a->tell = tell;
	for (c = 0; c < JOB_CLASSES; c++) {
		class_ms[c] = task_ms * (c + 1) / 2;
		mean_len += (double)class_ms[c] / JOB_CLASSES;
	}
	rate = load * nodes * s->cfg.slots / (JOB_TASKS_MEAN * mean_len);
	for (k = 0; k < njobs; k++) {
		struct arrival	*j = &a->v[k];
		int64_t		 alone;
		int		 waves;

		at += exponential(s, 1 / rate);
		j->at = (int64_t)at;
		j->node = (int)(sim_random(s) % (uint64_t)nodes);
		j->ntasks = (int)lround(lognormal(s, JOB_TASKS_MEAN,
		    JOB_TASKS_SD));
		if (j->ntasks < 1)
			j->ntasks = 1;
		j->cls = (int)(sim_random(s) % JOB_CLASSES);
		/* In isolation: its tasks in waves over the whole pool. */
		waves = (j->ntasks + nodes * s->cfg.slots - 1) /
		    (nodes * s->cfg.slots);
		alone = waves * class_ms[j->cls];
		j->deadline = j->at + (int64_t)((1.5 + (fmax - 1.5) *
		    draw(s)) * (double)alone);
		j->first = a->total;
		a->total += j->ntasks;
		if (j->at + alone > a->last_end)
			a->last_end = j->at + alone;
	}
}

/* The node's forecast of when the job ends: its latest task's. */
static int64_t
job_forecast(struct simnet *s, int i, char (*u)[UUID_STRLEN + 1], int n)
{
	int64_t	 end = -1, e;
	int	 k;

	for (k = 0; k < n; k++) {
		const struct task *t = node_find(s->nodes[i], u[k]);
		if (t != NULL && (e = node_task_forecast(s->nodes[i], t,
		    sim_local(s, i))) > end)
			end = e;
	}
	return end;
}

void
arrivals_before(struct arrivals *a, struct simnet *s, int64_t t,
    char (*u)[UUID_STRLEN + 1])
{
	while (a->next < a->n && a->v[a->next].at < t) {
		struct arrival	*j = &a->v[a->next];
		int		 k, i, tries;

		if (s->now < j->at)
			sim_run_until(s, j->at);
		/* Its node is down: the person walks to the next desk that
		 * is up; none is: it comes again once one is. */
		for (i = j->node, tries = 0; !s->alive[i] && tries < a->nodes;
		    tries++)
			i = (i + 1) % a->nodes;
		if (!s->alive[i])
			return;
		a->next++;
		s->deadline_ms = a->jobs && a->tell ? j->deadline : 0;
		for (k = 0; k < j->ntasks; k++)
			sim_schedule(s, i, a->jobs ? class_exec[j->cls] :
			    "job", PRIO_LOW, 0, NULL, u[j->first + k]);
		s->deadline_ms = 0;
		if (a->jobs)
			j->forecast = job_forecast(s, i, &u[j->first],
			    j->ntasks);
	}
}

int
arrivals_done(const struct arrivals *a)
{
	return a->next >= a->n;
}

static int
cmp_double(const void *x, const void *y)
{
	double	a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* E4: deadlines missed and the forecasts' error, over the middle jobs. */
static void
report_jobs(const struct arrivals *a, struct simnet *s, int i,
    char (*u)[UUID_STRLEN + 1])
{
	int	 lo = a->n * EDGE_PERCENT / 100, hi = a->n - lo, k, m;
	int	 counted = 0, missed = 0, near = 0, forecasts = 0;
	double	 late = 0, *err = sim_calloc((size_t)a->n + 1, sizeof *err);

	for (k = lo; k < hi; k++) {
		const struct arrival *j = &a->v[k];
		int64_t end = -1;
		for (m = 0; m < j->ntasks; m++) {
			const struct task *t = sim_record(s, i,
			    u[j->first + m]);
			if (t == NULL || t->state != TASK_TERMINATED) {
				end = -1;
				break;
			}
			if (t->end_ms > end)
				end = t->end_ms;
		}
		if (end < 0)
			continue;	/* lost with its node, or failed */
		counted++;
		if (end > j->deadline) {
			missed++;
			late += (double)(end - j->deadline) /
			    (double)(j->deadline - j->at);
		}
		if (j->forecast > j->at) {
			err[forecasts] = fabs((double)(j->forecast - end)) /
			    (double)(end - j->at);
			near += err[forecasts++] <= 0.10;
		}
	}
	qsort(err, (size_t)forecasts, sizeof *err, cmp_double);
	printf("jobs: %d counted of %d, %d missed their deadline (%.1f%%), "
	    "%.0f%% of the time allowed late on average; deadlines %s\n",
	    counted, a->n, missed, counted > 0 ? 100.0 * missed / counted : 0,
	    missed > 0 ? 100 * late / missed : 0,
	    a->tell ? "told" : "not told (fifo)");
	printf("forecasts: %d, %.0f%% within 10%% of the end, median error "
	    "%.1f%%, 90th percentile %.1f%%\n", forecasts,
	    forecasts > 0 ? 100.0 * near / forecasts : 0,
	    forecasts > 0 ? 100 * err[forecasts / 2] : 0,
	    forecasts > 0 ? 100 * err[forecasts * 9 / 10] : 0);
	free(err);
}

/* E2: collisions and the time an idle node takes to start a task. */
static void
report_tasks(const struct arrivals *a, struct simnet *s,
    char (*u)[UUID_STRLEN + 1])
{
	int	k, collided = 0;

	for (k = 0; k < a->total; k++)
		collided += u[k][0] != '\0' && sim_starts(s, u[k], NULL) > 1;
	printf("collisions: %d of %d tasks started on two nodes or more "
	    "(%.2f%%)\n", collided, a->total,
	    a->total > 0 ? 100.0 * collided / a->total : 0);
	printf("scheduling: %.1f ms on average from a free node and a ready "
	    "task to the start (%llu starts), at most %lld ms (%s)\n",
	    s->sched_n > 0 ? s->sched_ms / (double)s->sched_n : 0,
	    (unsigned long long)s->sched_n, (long long)s->sched_max,
	    s->sched_worst);
}

void
arrivals_report(const struct arrivals *a, struct simnet *s, int i,
    char (*u)[UUID_STRLEN + 1])
{
	if (a->jobs)
		report_jobs(a, s, i, u);
	report_tasks(a, s, u);
}

void
arrivals_free(struct arrivals *a)
{
	free(a->v);
	memset(a, 0, sizeof *a);
}
