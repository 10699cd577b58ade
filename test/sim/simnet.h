/*
 * simnet.h -- N instances of the real core on a simulated LAN with a
 * virtual clock.  Datagrams go through the real codec with a delay and
 * jitter (so they reorder), and can be lost (loss rate, partitions, a
 * drop filter) or duplicated.  Each node writes its journal as the real
 * one is written, framed records appended and compacted, and a restart
 * reads it back through the real load path, torn last line included.  Task processes
 * are simulated: a run lasts its task's duration and then terminates, or
 * crashes with a probability.  Seeded: same seed, same run.
 *
 * Invariants are checked as events happen (a task started before its
 * inputs are bound) and on demand (sim_check: nothing lost, one result,
 * one master and identical maps and queues once the network is calm).
 */
#ifndef VOLERY_SIMNET_H
#define VOLERY_SIMNET_H

#include <stdint.h>

#include "guard.h"
#include "node.h"
#include "seal.h"
#include "simckpt.h"
#include "taskdesc.h"
#include "taskmap.h"

#define SIM_MAXNODES 2048
#define SIM_TRACE 64

struct evqueue;
struct sim_run;
struct sim_tally;

/* One of the last events, kept for a violation's report: copied, not
 * formatted (formatting every log line of 1000 nodes cost seconds). */
struct sim_trace {
	int64_t	 at;
	int	 node;		/* -1: the simulator */
	char	 text[201];
};

/* A node's journal file, byte for byte as the real one is written. */
struct sim_disk {
	char	*buf;
	size_t	 len, cap;
	size_t	 records;
};

struct simnet {
	int			 n;
	struct node		**nodes;	/* [SIM_MAXNODES], NULL: never booted */
	int64_t			 timer[SIM_MAXNODES];	/* as each node armed it */
	int			 alive[SIM_MAXNODES];
	int			 group[SIM_MAXNODES];	/* partitions */
	uint64_t		 incarnation[SIM_MAXNODES];
	struct sim_disk		 disk[SIM_MAXNODES];	/* journals */
	char			*members[SIM_MAXNODES];	/* members files */
	char			*stay[SIM_MAXNODES];	/* stay files */
	int64_t			 down_at[SIM_MAXNODES];	/* its last crash,
							 * its clock */
	/* Asleep (simwake.c), its magic packet on the way; wakes sent. */
	int			 asleep[SIM_MAXNODES], waking[SIM_MAXNODES];
	uint64_t		 wakes;
	int64_t			 wake_ms;	/* a magic packet to resumed */
	struct taskdesc_set	*descs;
	struct node_config	 cfg;		/* for every node */
	int64_t			 now;
	int64_t			 latency_ms;	/* base delay */
	int64_t			 jitter_ms;	/* + uniform [0, jitter] */
	int			 loss_percent;
	int			 dup_percent;
	int			 crash_percent;	/* runs that crash */
	/* -x: a task's work is drawn once, for all its runs and copies
	 * (as with -i), so that a tail replica runs the same task. */
	int			 fixed_work;
	uint64_t		 seed;
	int64_t			 task_ms;	/* <0: runs never end */
	int64_t			 (*duration)(struct simnet *, const char *exec);
	/* Return 1 to drop a datagram (after partitions and loss). */
	int			(*drop)(struct simnet *, int from, int to,
				    const char *body);
	struct evqueue		*dgrams;	/* in flight */
	struct sim_run		*runs;		/* simulated processes */
	struct sim_tally	*tally;		/* starts per task */
	uint64_t		 sent, lost, delivered, starts;
	/* Each start's run estimate against the run it gets: the sum of
	 * |estimate - run| / run, and how many had an estimate. */
	double			 est_err;
	uint64_t		 est_n;
	unsigned		 scheduled;	/* uuids handed out */
	const char		*user;		/* who schedules, or NULL */
	int64_t			 deadline_ms;	/* what it schedules: to end
						 * by; 0 none */
	/* -b K: what it schedules carries an estimate of its length l
	 * drawn at once; its work is drawn from [l/K, l*K]; 0: none. */
	double			 est_k;
	/* -b: the workload's own draws (lengths, works, types), apart from
	 * the run's, so that every policy gets the same tasks. */
	uint64_t		 work_seed;
	/* From a node free and a task ready (the later) to its start: the
	 * sum and the count of starts (E2's scheduling time), the longest
	 * and its task. */
	int64_t			 free_since[SIM_MAXNODES];
	double			 sched_ms;
	uint64_t		 sched_n;
	int64_t			 sched_max;
	char			 sched_worst[UUID_STRLEN + 1];
	int			 verbose;
	int			 no_disks;	/* nobody restarts: skip journals */
	/* Hostile settings, all off by default. */
	int64_t			 skew[SIM_MAXNODES];	/* node clock - ours */
	int			 cut_in[SIM_MAXNODES];	/* hears nothing */
	int			 cut_out[SIM_MAXNODES];	/* is not heard */
	int			 lacks[SIM_MAXNODES];	/* no segmentation */
	/* -H: every run on such a node ends without a result (a full
	 * disk), and how many runs started there. */
	int			 black_hole[SIM_MAXNODES];
	uint64_t		 black_hole_runs;
	uint64_t		 black_hole_fails[SIM_MAXNODES];
	/* -m: every cpu_step ms, each node's CPU availability (a state
	 * of sim_cpu_avail's chain) steps; 0 never. */
	int64_t			 cpu_step;
	int			 cpu_state[SIM_MAXNODES];
	double			 speed[SIM_MAXNODES];	/* runs take 1/speed
							 * of their time; 0: 1 */
	int			 queue_max;	/* datagrams a node takes a ms */
	int64_t			 queue_ms[SIM_MAXNODES];
	int			 queue_n[SIM_MAXNODES];
	int			 progress;	/* runs report progress */
	/* -L: scheduled tasks are one array, at most array_max running at
	 * once; array_strict: more is a violation (a calm network: no
	 * loss, duplicate, partition, crash or jitter past the window can
	 * hide a claim). */
	char			 array[UUID_STRLEN + 1];
	int			 array_max;
	/* -r: every task is checked by this many replicas (verify.c); the
	 * liar (-F) reports results of its own of the replicas it runs. */
	int			 verify;
	int			 array_strict;
	int			 array_most;	/* the most seen at once */
	/* -g: nodes tell what they have (4 cores, 8 GB; the first gpu_nodes
	 * also the tag gpu), every third task needs gpu, and one never
	 * starts where it is missing. */
	int			 gpu_nodes;
	int			 oversize_percent; /* requests near the limits */
	int64_t			 max_skew;	/* -K */
	/* Sealed datagrams (seal.c) and each node's guard (guard.c). */
	int			 insecure;	/* -U: neither */
	int			 replay_percent;	/* -Z */
	struct keyring		 ring;
	struct guard		 guard[SIM_MAXNODES];
	uint64_t		 counter[SIM_MAXNODES];	/* broadcasts sent */
	uint64_t		*ucounter[SIM_MAXNODES];	/* unicasts, by
							 * destination */
	uint64_t		 rejected;	/* dropped by a guard */
	/* -F: node identities (liar.c): each node's key, every other's
	 * known; the last node a liar that forges others' ends. */
	int			 identities;
	uint8_t			 pk[SIM_MAXNODES][32];
	uint8_t			 sk[SIM_MAXNODES][64];
	int			 liar;		/* its index, or -1 */
	uint64_t		 lies;		/* forgeries sent */
	int			 fewest_up;	/* nodes up at once, at least */
	struct sim_ckpts	 ckpts;		/* -i (simckpt.h) */
	/* Invariant violations: count and the first one's text. */
	int			 violations;
	char			 violation[1024];
	struct sim_trace	 trace[SIM_TRACE];
	int			 ntrace;
};

void	sim_init(struct simnet *, int n, struct taskdesc_set *, int64_t now);
void	sim_free(struct simnet *);
/* Start node i with reputation (journal as its disk keeps it). */
/* -m: CPU availability as a Markov chain, stepped every `every` ms. */
void	sim_cpu_avail(struct simnet *, int64_t every);
void	sim_boot(struct simnet *, int i, int reputation);
void	sim_flush(struct simnet *, int i);
/* Node i's record of uuid: in its map, or, once a node moved it to its
 * history (-W), that record; NULL if neither. */
const struct task *sim_record(struct simnet *, int i, const char *uuid);
/* The maps of nodes a and b are the same (-W: but for tasks leaving). */
int	sim_maps_agree(struct simnet *, int a, int b);
/* Node i's clock now (ours plus its skew): what its entry points take. */
int64_t	sim_local(const struct simnet *, int i);
void	sim_run_until(struct simnet *, int64_t t);
void	sim_crash(struct simnet *, int i);
/* simwake.c: node i goes to sleep (the sleep hook); ACT_WAKE from
 * node `from`; the magic packet arrived. */
void	sim_sleep(struct simnet *, int i);
void	simwake_heard(struct simnet *, int from, const char *text);
void	simwake_resume(struct simnet *, int i);
/* ACT_SLEEP from node i (<sleep_when_idle_min>): it sleeps at once,
 * once its outbox is carried out. */
void	simwake_sleep_soon(struct simnet *, int i);
int	sim_master_count(struct simnet *, const char **name);
int	sim_index(struct simnet *, const char *name);
/* A draw of the workload's stream (-b). */
uint64_t sim_work_random(struct simnet *);
int	sim_schedule(struct simnet *, int i, const char *exec, int prio,
	    int nbind, const struct task_binding *, char *uuid_out);
/* The four-task workflow of thesis Table 4.1 on node i, uuids in u[4],
 * each task of priority prio[k]. */
int	sim_workflow(struct simnet *, int i, const int prio[4],
	    char (*u)[UUID_STRLEN + 1]);
int	sim_starts(struct simnet *, const char *uuid, char *last_node);
void	sim_finish(struct simnet *, int i, const char *uuid);
uint64_t sim_random(struct simnet *);
void	sim_violation(struct simnet *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/*
 * The calm-network invariants over the live nodes: every task in `uuids`
 * known and final everywhere with one result, one master, identical maps
 * and ready queues.  Returns the number of violations found.
 */
int	sim_check(struct simnet *, char (*uuids)[UUID_STRLEN + 1], int n);
/* Broadcast body (type and arguments) from node i, as it would. */
void	sim_inject(struct simnet *, int i, const char *body);

/* liar.c: keys for the nodes, and the last one a liar; node i learns
 * every key; a key told final that only a forgery holds; forge an end of
 * task uuid, from the liar's record of it. */
void	sim_identities(struct simnet *);
void	sim_learn_keys(struct simnet *, int i);
int	sim_forged(const char *key);
void	sim_lie(struct simnet *, const char *uuid);
/* The pool was split (a partition, a cut link): the fewest nodes that
 * may count as all the members, for the liar's claimed runs. */
void	sim_split(struct simnet *);

/* The simulator's allocations: out of memory, it says so and exits 2
 * (a huge pool can outgrow the machine; it must not crash instead). */
/* The k-th of the last events kept, oldest first, as a line. */
void	 sim_trace_line(struct simnet *, int k, char *, size_t);
void	*sim_calloc(size_t, size_t);
void	*sim_realloc(void *, size_t);
char	*sim_strdup(const char *);

#endif
