/*
 * simnet.h -- N instances of the real core on a simulated LAN with a
 * virtual clock: datagrams go through the real codec, with a delay, and
 * can be lost (partitions, a loss rate, or a drop filter).  Task
 * processes are simulated: a started task runs for `task_ms` and then
 * terminates with outputs, unless the test intervenes.
 */
#ifndef VOLERY_SIMNET_H
#define VOLERY_SIMNET_H

#include <stdint.h>

#include "node.h"
#include "taskdesc.h"

#define SIM_MAXNODES 64

struct sim_dgram;
struct sim_run;

struct simnet {
	int			 n;
	struct node		 nodes[SIM_MAXNODES];
	int			 alive[SIM_MAXNODES];
	int			 group[SIM_MAXNODES];	/* partitions */
	struct taskdesc_set	*descs;
	int64_t			 now;
	int64_t			 latency_ms;
	int			 loss_percent;
	uint64_t		 seed;
	int64_t			 task_ms;	/* <0: runs never end */
	/* Return 1 to drop a datagram (after partitions and loss). */
	int			(*drop)(struct simnet *, int from, int to,
				    const char *body);
	struct sim_dgram	*dgrams;	/* in flight, by time */
	struct sim_run		*runs;		/* simulated processes */
	uint64_t		 sent, lost, starts;
	int			 verbose;
};

void	sim_init(struct simnet *, int n, struct taskdesc_set *, int64_t now);
void	sim_free(struct simnet *);
/* Start node i (journal empty); call for every node. */
void	sim_boot(struct simnet *, int i, int reputation);
/* Carry out node i's outbox (after a direct call into its core). */
void	sim_flush(struct simnet *, int i);
/* Run every event up to time t. */
void	sim_run_until(struct simnet *, int64_t t);
void	sim_crash(struct simnet *, int i);
int	sim_master_count(struct simnet *, const char **name);
int	sim_index(struct simnet *, const char *name);
/* Schedule on node i; returns 0 and the uuid in uuid_out. */
int	sim_schedule(struct simnet *, int i, const char *exec, int prio,
	    int nbind, const struct node_binding *, char *uuid_out);
/* How many runs of uuid were started, and on which node the last. */
int	sim_starts(struct simnet *, const char *uuid, char *last_node);
/* A simulated run of uuid on node i: finish it now with its outputs. */
void	sim_finish(struct simnet *, int i, const char *uuid);

#endif
