/*
 * arrivals.h -- workloads that arrive over time (Poisson), for the
 * papers' open-system experiments:
 *
 *   -w poisson  (E2, the P2P HTC thesis, chapter 2): single tasks of
 *               U(1, task_ms) ms arriving at a load of the pool's
 *               capacity; measured: collisions (tasks run by two nodes
 *               or more) and how long an idle node takes to start one.
 *   -w jobs     (E4, Polo, section 5.3): jobs of lognormal(62, 15.5)
 *               tasks of one length each, arriving at a load; each has a
 *               deadline U(1.5, F) times its run in isolation, told to
 *               the scheduler or (FIFO, the baseline) only measured;
 *               measured: deadlines missed, and how near the node's
 *               forecast at submit came to the job's end.
 *
 * Every arrival is drawn before the first is submitted, from the seed's
 * stream, so that two runs of one seed (deadlines told or not) meet the
 * same work.
 */
#ifndef VOLERY_SIM_ARRIVALS_H
#define VOLERY_SIM_ARRIVALS_H

#include <stdint.h>

#include "simnet.h"

struct arrival;

struct arrivals {
	struct arrival	*v;
	int		 n, next;	/* drawn; submitted so far */
	int		 total;		/* tasks, all arrivals' */
	int		 jobs;		/* -w jobs (else -w poisson) */
	int		 tell;		/* deadlines told to the scheduler */
	int		 nodes;
	int64_t		 last_end;	/* the latest isolated end drawn */
};

/* -w poisson: ntasks tasks of U(1, max_ms) at `load` of nodes' slots. */
void	arrivals_poisson(struct arrivals *, struct simnet *, int ntasks,
	    int nodes, double load, int64_t max_ms, int64_t start);
/* -w jobs: njobs jobs of class lengths task_ms x {0.5, 1, 1.5, 2}, at
 * `load`, deadlines U(1.5, fmax) x their isolated run; told or not. */
void	arrivals_jobs(struct arrivals *, struct simnet *, int njobs,
	    int nodes, double load, double fmax, int tell, int64_t task_ms,
	    int64_t start);
/* A task's run time by its exec, as the simulator's duration hook. */
int64_t	arrivals_duration(struct simnet *, const char *exec);
/* Submit every arrival due before t, in order, the clock run up to
 * each; uuids into u (total of them, in arrival order). */
void	arrivals_before(struct arrivals *, struct simnet *, int64_t t,
	    char (*u)[UUID_STRLEN + 1]);
int	arrivals_done(const struct arrivals *);
/* The experiment's lines, from live node i's records (stdout). */
void	arrivals_report(const struct arrivals *, struct simnet *, int i,
	    char (*u)[UUID_STRLEN + 1]);
void	arrivals_free(struct arrivals *);

#endif
