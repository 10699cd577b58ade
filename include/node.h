/*
 * node.h -- the scheduling state machine of one node: the task map, the
 * ready queue, bindings, runs, retries, cancellation, and the cluster
 * protocol (election, distributed dequeue, replication, failure
 * detection, anti-entropy).
 *
 * Every entry point takes the current time and appends what must happen
 * to n->out; none does I/O.  The libevent shell (src/io), the tests and
 * the simulator feed events in and carry the actions out.
 */
#ifndef VOLERY_NODE_H
#define VOLERY_NODE_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "outbox.h"
#include "readyq.h"
#include "taskmap.h"
#include "volunteer.h"

struct task;
struct taskdesc_set;
struct peer_msg;

#define NODE_CLAIMS	1024	/* remembered TRY_DEQUEUE proposals */
#define CLAIM_WINDOWS	4	/* remembered for this many windows */
#define NODE_HINTS	512	/* power of two */

struct node_config {
	char		name[NAME_MAXLEN + 1];
	int		slots;
	int		max_attempts;
	int64_t		ageing_ms;
	int		reputation;
	int64_t		dequeue_window_ms;
	int64_t		election_window_ms;
	int64_t		progress_interval_ms;	/* also the housekeeping tick */
	int64_t		failure_timeout_ms;
	int64_t		node_timeout_ms;
	int		client_port;	/* told in heartbeats */
};

/* What this node knows of another. */
struct peer {
	char		name[NAME_MAXLEN + 1];
	char		addr[ADDR_MAXLEN + 1];	/* its UDP replies */
	char		client_addr[ADDR_MAXLEN + 1];	/* for NODES */
	uint64_t	incarnation;
	int64_t		heard_ms;
	int		alive;
	int		master;		/* claims to be master */
	uint64_t	epoch;
	int		free, slots;
	char		volunteer[16];
	int		reputation;
	uint64_t	ntasks;
	uint64_t	digest;
	int64_t		running_ms;	/* its last PROGRESS: it runs a task */
};

struct node {
	struct node_config	   cfg;
	const struct taskdesc_set *descs;
	struct taskmap		   map;
	struct readyq		   ready;
	struct outbox		   out;
	int			   running;	/* slots in use */
	int			   volunteer;	/* may take tasks now */
	const char		  *volunteer_state;	/* for heartbeats */
	int64_t			   timer;	/* armed tick, or -1 */
	int64_t			   last_submit;	/* newest submit stamp */

	/* Cluster. */
	struct peer		  *peers;
	size_t			   npeers;
	int			  *peer_slots;	/* hash of names -> index */
	size_t			   peer_cap;	/* power of two */
	int			   nlive;	/* peers alive */
	int			   idle_rank;	/* among idle nodes, by name */
	int			   idle_dirty;	/* idle_rank to recompute */
	char			   master[NAME_MAXLEN + 1];	/* "" unknown */
	uint64_t		   epoch;	/* of the master we follow */
	int64_t			   master_heard;
	int			   joined;	/* has had a master */
	int64_t			   join_deadline;	/* -1: none */
	int64_t			   next_housekeeping;
	int64_t			   next_heartbeat;
	int			   mismatches;	/* digests unlike master's */
	uint64_t		   digest;	/* of the map, when !dirty */
	int			   digest_dirty;
	int64_t			   last_sync;
	int			   nunacked;
	struct {
		int		   active;
		int64_t		   ts;
		int64_t		   deadline;
		int		   lost;
	}			   elect;
	struct {
		int		   active;
		char		   uuid[UUID_STRLEN + 1];
		int64_t		   ts;
		int64_t		   deadline;
		int		   lost;
	}			   deq;
	int			   rank;	/* losses in the last race */
	/* Others' recent TRY_DEQUEUEs: a proposal made just before ours
	 * competes with it too, though it arrived before our window. */
	struct claim {
		char		   uuid[UUID_STRLEN + 1];
		char		   node[NAME_MAXLEN + 1];
		int64_t		   ts;		/* the proposer's stamp */
		int64_t		   seen;	/* our clock */
	}			   claims[NODE_CLAIMS];
	int			   nclaims;	/* ring position */
	/* Newest claim per task, direct-mapped by uuid hash: a quick
	 * "is someone taking it" for dispatch. */
	struct claim_hint {
		char		   uuid[UUID_STRLEN + 1];
		int64_t		   seen;
	}			   hints[NODE_HINTS];
	int64_t			   retry_at;	/* all ready tasks claimed */
	uint64_t		   stat_duplicates;	/* runs stopped */
};

/* A SCHEDULE request, already parsed and syntax-checked. */
struct node_binding {
	char	uuid[UUID_STRLEN + 1];
	int	nth;
};

struct node_schedule_req {
	const char		*exec;
	int			 prio;		/* enum task_prio */
	const char		*path;		/* or NULL */
	const char		*params;	/* or NULL */
	int			 nbind;
	const struct node_binding *bind;
	const char		*client;	/* requesting host */
};

/* How a task's process ended (from waitpid). */
struct node_exit {
	int	code;		/* exit status, or -1 */
	int	signo;		/* terminating signal, or 0 */
};

struct runner_msg;

void	node_init(struct node *, const struct node_config *,
	    const struct taskdesc_set *);
void	node_free(struct node *);
struct task *node_find(const struct node *, const char *);
int	node_is_master(const struct node *);

/* Client requests.  On error, no change and a reason in err. */
int	node_schedule(struct node *, const struct node_schedule_req *,
	    const char *uuid, int64_t now, char *err, size_t errlen);
int	node_cancel(struct node *, const char *uuid, int64_t now, char *err,
	    size_t errlen);

/* From our running processes. */
void	node_runner_msg(struct node *, const char *uuid,
	    const struct runner_msg *, int64_t now);
void	node_runner_exit(struct node *, const char *uuid,
	    const struct node_exit *, int64_t now);

/* From the other nodes: a parsed datagram of our cluster, not ours. */
void	node_peer_msg(struct node *, const struct peer_msg *,
	    const char *addr, int64_t now);

void	node_set_volunteer(struct node *, int, const char *state,
	    int64_t now);
/* The volunteer policy decided (volunteer.h): take tasks or not, and
 * suspend, resume or vacate our runs. */
void	node_volunteer(struct node *, const struct vol_decision *,
	    int64_t now);
/* Our runs the policy may suspend: all but our own interactive ones. */
int	node_suspendable(const struct node *);
void	node_tick(struct node *, int64_t now);

/*
 * Start-up: node_restore() each task of the journal (a later record of
 * the same uuid replaces the earlier), then node_recover() once, then
 * node_start() to join the cluster.
 */
int	node_restore(struct node *, struct task *);
void	node_recover(struct node *, int64_t now);
void	node_start(struct node *, int64_t now);
/* A clean stop: our runs go back to Ready for the others. */
void	node_stop(struct node *, int64_t now);

uint64_t node_digest(struct node *);

#endif
