/*
 * node.h -- the scheduling state machine of one node, as the shell, the
 * simulator and the tools see it: an opaque struct node, the events it
 * takes, and read-only views of what it knows.
 *
 * Every entry point takes the current time and appends what must happen
 * to the node's outbox (node_outbox); none does I/O.  The libevent shell
 * (the shell, src/server), the tests and the simulator feed events in and carry the
 * actions out.  The sub-protocols behind it live one per file in
 * src/core (nodestate.h lists them).
 */
#ifndef VOLERY_NODE_H
#define VOLERY_NODE_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "outbox.h"
#include "readyq.h"
#include "task.h"
#include "volunteer.h"

struct node;
struct taskdesc_set;
struct peer_msg;
struct runner_msg;

/* <placement>: informed ranks idle nodes by speed and expected stay
 * (placement.h); blind by name only; fit ranks them as informed and each
 * takes the task of the next few that best fits its stay (fit.h). */
enum placement_mode { PLACEMENT_INFORMED, PLACEMENT_BLIND, PLACEMENT_FIT };
int	placement_mode_parse(const char *, enum placement_mode *);

struct node_config {
	char		name[NAME_MAXLEN + 1];
	int		slots;
	int		max_attempts;
	/* A failed attempt waits this long before it is retried, twice as
	 * long after each failure (retry.c); 0: none. */
	int64_t		retry_delay_ms;
	/* A node whose runs of quarantine_after tasks fail within
	 * quarantine_window_ms while they succeed elsewhere takes no tasks
	 * for quarantine_ms (0: never). */
	int		quarantine_after;
	int64_t		quarantine_window_ms;
	int64_t		quarantine_ms;
	/* Copies of a run's newest checkpoint asked of other nodes, and
	 * the largest checkpoint kept (ckpt.c). */
	int		checkpoint_copies;
	int64_t		max_checkpoint_bytes;
	int64_t		ageing_ms;
	int		reputation;
	int64_t		dequeue_window_ms;
	int64_t		election_window_ms;
	int64_t		progress_interval_ms;	/* also the housekeeping tick */
	int64_t		failure_timeout_ms;
	int64_t		node_timeout_ms;
	/* A node that has run nothing for node_timeout_ms beats this often
	 * (when longer than its period) and says so; 0: never slower. */
	int64_t		quiet_heartbeat_ms;
	/* A node silent this long (or stopped cleanly) leaves the
	 * membership whose majority confirms results (confirm.c). */
	int64_t		membership_timeout_ms;
	int		max_peers;	/* the peer table's bound */
	/* Ready work waiting this long with no free slot wakes sleeping
	 * nodes (wake.h); 0: never.  wake: how to wake us, told when we
	 * sleep ("<mac>@<broadcast>[,always]"); "": we cannot be woken. */
	int64_t		wake_after_ms;
	char		wake[WAKE_TEXT_MAX + 1];
	/* A dedicated or batch node, not the master, that can be woken
	 * and has had nothing it could run this long goes to sleep
	 * (ACT_SLEEP); 0: never. */
	int64_t		sleep_when_idle_ms;
	/* A peer's stamps and record times further than this from our
	 * clock are refused (plausible.c); 0: unchecked. */
	int64_t		max_clock_skew_ms;
	/* This node's signing key (64 bytes, Ed25519): it signs the origin
	 * of the tasks it takes, and checks others' (origin.c).  NULL: no
	 * identities (the simulator, <insecure/>). */
	const uint8_t	*sign_sk;
	int64_t		peer_evict_ms;	/* a dead non-member this long
					 * leaves the peer table */
	/* A settled task leaves the map this long after its end (to the
	 * history, retire.c); 0: never. */
	int64_t		retention_ms;
	int		client_port;	/* told in heartbeats */
	enum queue_order order;	/* outside batch windows of their own */
	enum placement_mode placement;	/* how idle nodes rank, what they take */
	int		replicate_tail;	/* copies of a task that may run at
					 * once in the tail; < 2 none (tail.h) */
	/* A described task of an owner with this uid or more runs as that
	 * owner here, if the shell finds the account (ACT_CHECK); -1:
	 * none does (a fixed <run_as>).  0 by default: every known one. */
	int64_t		owner_min_uid;
	/* One user's tasks running at once in the pool, at most (0: any;
	 * every node should say the same). */
	int		max_running_per_user;
	/* Users' own limits instead, "alice:8,bob:2" ("" none). */
	char		max_running_of[CAPS_TEXT_MAX + 1];
	/* fairshare order: a user's usage halves every this long. */
	int64_t		fairshare_halflife_ms;
	/* Log lines below this level are not even formatted (a busy
	 * pool's debug lines cost more than the rest of a datagram). */
	enum log_level	log_min;
	/* What this host has, for the tasks that ask (and told in
	 * heartbeats): cores and memory (MB; 0: not counted, as in the
	 * simulator) and tags, a comma list of names ("gpu,linux,x86_64"). */
	int		cores;
	int64_t		memory_mb;
	char		tags[CAPS_TEXT_MAX + 1];
	/* How this node contains its runs (the shell's word, told in
	 * heartbeats for `volery nodes`); "" says nothing. */
	char		containment[NAME_MAXLEN + 1];
};

/* The least lateness of a peer's stamps lately, in us: its clock's
 * offset from ours and the wire's delay (lateness.c). */
struct lateness_base {
	int64_t		us;
	int64_t		at_ms;		/* when last moved; 0: never */
	int64_t		claim_ms;	/* its newest claim's stamp */
};

/* What this node knows of another (node_each_peer). */
struct peer {
	/* What each datagram from it reads first (its name is the key). */
	char		name[NAME_MAXLEN + 1];
	int		name_before_us;	/* its name sorts before ours */
	uint64_t	name_hash;	/* task_hash(name) (voters.c) */
	uint64_t	incarnation;
	int64_t		heard_ms;
	int		alive;
	int		member;		/* counts in the majority (confirm.c) */
	int		free, slots;
	int		takes_tasks;	/* its volunteer state takes tasks:
					 * volunteer, read once per heartbeat */
	int64_t		running_ms;	/* its last PROGRESS: it runs a task */
	int		master;		/* claims to be master */
	uint64_t	epoch;
	char		volunteer[16];
	int		reputation;
	int		speed;		/* per mille of the pool's (placement.c) */
	int64_t		life_s;		/* expected rest of its volunteering */
	int64_t		window_from_ms, window_to_ms;	/* its batch window
					 * ahead (avail.h); 0 to: none told */
	int64_t		beat_ms;	/* its next heartbeat within, as it
					 * told; 0: not told yet */
	struct lateness_base late_base;	/* its stamps' (lateness.h) */
	int		capset;		/* what it has (capset.c); 0 unknown */
	uint64_t	ntasks;
	uint64_t	digest;
	/* Rate limits (peerrate_allow): the current window and its count,
	 * per kind of message. */
	int64_t		rate_start[2];
	int		rate_count[2];
	char		addr[ADDR_MAXLEN + 1];	/* its UDP replies */
	char		running[UUID_STRLEN + 1];	/* the run its STATE
						 * began, if one slot */
	char		client_addr[ADDR_MAXLEN + 1];	/* for NODES */
	/* Its share of the idle count and rank (peertab.c). */
	int		counted_idle, counted_first;
	/* Master only: its digests unlike ours in a row, and when we last
	 * sent it our map (antientropy.c). */
	int		ae_mismatches;
	int64_t		ae_sent_ms;
};

/* Where the node stands (node_status). */
struct node_status {
	const char	*name;
	const char	*master;	/* "" unknown */
	int		 is_master;
	uint64_t	 epoch;
	int		 slots, running;
	int		 volunteer;	/* takes tasks now */
	const char	*volunteer_state;	/* as in heartbeats */
	size_t		 ntasks, nready;
	int		 unacked;	/* ENQUEUEs not acked yet */
	uint64_t	 duplicates;	/* our runs stopped as duplicates */
	uint64_t	 implausible;	/* peers' values refused (plausible.c) */
	const char	*implausible_from;	/* the latest's sender */
	uint64_t	 signed_made;	/* signatures over origins and runs */
	uint64_t	 signed_checked;
	uint64_t	 void_claims;	/* claims that never became runs */
	const char	*void_claims_from;
	uint64_t	 disputes;	/* --verify replicas that disagreed */
	const char	*disputed;	/* the latest's odd runner */
	/* <replicate_tail> (tail.h): replicas made as taker, tasks seen
	 * ended by a replica, runs here stopped by a copy's end, and the
	 * time those had run. */
	uint64_t	 tail_made, tail_won, tail_stopped;
	int64_t		 tail_wasted_ms;
	int64_t		 timer;		/* the armed tick, or -1 */
	/* Quarantined (retry.h): until then (epoch ms; 0 not), and why. */
	int64_t		 quarantine_until;
	const char	*quarantine_why;
	/* Our batch window ahead (avail.h): opens, closes; 0 closes: none. */
	int64_t		 window_from_ms, window_to_ms;
	/* Sleeping nodes we know how to wake, and wake-ups sent (wake.h). */
	size_t		 sleepers;
	uint64_t	 woken;
};

/* A SCHEDULE request, already parsed and syntax-checked. */
struct node_schedule_req {
	const char		*exec;
	int			 prio;		/* enum task_prio */
	const char		*path;		/* or NULL */
	const char		*params;	/* or NULL */
	int			 nbind;
	const struct task_binding *bind;
	const char		*client;	/* requesting host */
	const char		*user;		/* who asked, or NULL */
	int64_t			 begin_ms;	/* not before (epoch ms); 0 */
	int64_t			 deadline_ms;	/* to end by (epoch ms); 0 */
	int64_t			 est_ms;	/* run time, estimated; 0 */
	int			 deadline_strict;	/* refused if the
						 * forecast misses it */
	int			 has_uid;	/* user is a local account: */
	int64_t			 uid;		/* its uid */
	/* A command task (RUN): exec is its name, and no description is
	 * needed; NULL for an executable of the tasks directory. */
	const struct task_cmd	*cmd;
	/* A task of an array: its uuid (NULL: none), value, and how many
	 * of it may run at once (0: any). */
	const char		*array;
	int			 array_index;
	int			 array_max;
	/* What it needs of a node, beyond its description's: cores, memory
	 * (MB) and tags (a comma list, or NULL). */
	int			 cores;
	int64_t			 memory_mb;
	const char		*tags;
	/* Run on this many distinct nodes and kept only if all agree
	 * (verify.h); 0: once, as any task. */
	int			 verify;
};

/* How a task's process ended (from wait4).  Its result counts once it
 * ended, so that the end record carries what the run cost. */
struct node_exit {
	int			 code;		/* exit status, or -1 */
	int			 signo;		/* terminating signal, or 0 */
	int64_t			 cpu_ms;	/* user + system; -1 unknown */
	int64_t			 maxrss_kib;	/* peak resident; -1 unknown */
	/* What it reported (TERMINATED, or a command's ERROR), or NULL. */
	const struct runner_msg	*result;
};

/* An admin's `volery nodes --clear`: this node takes tasks again after
 * a quarantine (retry.h); -1 if it was not quarantined. */
int	node_quarantine_clear(struct node *, int64_t now);
/* After a restart: the quarantine the last ACT_QUARANTINE told, if it
 * still holds (0), else -1 (ended, or not what the core wrote). */
int	node_quarantine_restore(struct node *, const char *text, int64_t now);
/* After a restart: the volunteer periods the last ACT_STAY told, and the
 * one a stop ended, if it was running then: from its start to alive_ms,
 * the last time the shell knew the node up.  -1 if the text is not what
 * the core wrote (nothing learned). */
int	node_stay_restore(struct node *, const char *text, int64_t alive_ms,
	    int64_t now);
/* Every field at its default (volery.conf(5)). */
void	node_config_default(struct node_config *);
/* Can a node run with c?  (Its ranges were checked before: config.c.) */
int	node_config_valid(const struct node_config *);
/* The longest a live node may be silent at this timing, up to ten nodes:
 * four quiet heartbeats, or the node timeout.  Another address may
 * take its name only after that (guard.h's bind_ms). */
int64_t	node_config_silence_ms(const struct node_config *);
/* A new node (NULL: out of memory, or a config no node can run with:
 * start from node_config_default()); node_free() frees it. */
struct node *node_new(const struct node_config *,
	    const struct taskdesc_set *);
void	node_free(struct node *);
/*
 * Before a client is told task uuid's end as final: 1 if it is (its
 * certificate holds, checked once; or it is not final, or unknown), 0
 * if its certificate does not hold -- it is unconfirmed here now, and
 * its end will be told when a majority's is.
 */
int	node_certify(struct node *, const char *uuid, int64_t now);
/* Sign t's run as this node (its runner) would: what a compromised node
 * can do with its own key (the simulator's liar). */
void	node_sign_run(struct node *, struct task *);

/* Views: nothing here changes the node. */
struct task *node_find(const struct node *, const char *);
int	node_is_master(const struct node *);
const char *node_name(const struct node *);
const char *node_master(const struct node *);	/* "" unknown */
void	node_status(const struct node *, struct node_status *);
/* Each task, in map order: start with *it = 0; NULL at the end. */
const struct task *node_next_task(const struct node *, size_t *it);
/* How many tasks the map has Running on the node named (no walk). */
int	node_running_on(const struct node *, const char *name);
/* Every task sorted by submit time (free the array), or NULL. */
struct task **node_tasks_sorted(const struct node *, size_t *count);
const struct task *node_ready_at(const struct node *, size_t);
/* Why no live node can run t ("waiting: no node has tag gpu"), or ""
 * if one can, into why (capset.c); where a --verify task's replicas
 * are, or which one t is (verify.c). */
void	node_task_waiting(struct node *, const struct task *, char *why,
	    size_t whylen);
/* What the peer p has: cores, memory and tags, executables ("" and 0
 * if it did not say). */
void	node_peer_caps(const struct node *, const struct peer *, int *cores,
	    int64_t *memory_mb, const char **tags, const char **execs);
/* The shell found it has no account for user's tasks (missing 1), or
 * has one after all (0): told in heartbeats (capset.c). */
void	node_owner_account(struct node *, const char *user, int missing);
/* How it contains its runs, as it says ("" if it does not). */
const char *node_peer_containment(const struct node *, const struct peer *);
/* Estimates from the runs of each task type (estimate.c): t's run (ms)
 * where it runs or would, and when it should end (node clock); -1: its
 * type, or an upstream's, never ran to a confirmed end here. */
int64_t	node_task_run_estimate(const struct node *, const struct task *);
int64_t	node_task_end_estimate(const struct node *, const struct task *,
	    int64_t now);
/* And counting what waits and runs ahead of it on the pool's slots; -1
 * also when no node takes tasks now (estimate.c). */
int64_t	node_task_forecast(const struct node *, const struct task *,
	    int64_t now);
/* When t should end as views show it: queueing counted for every task,
 * a waiting one after its inputs' forecasts; kept between changes of
 * the map (estimate.h), so the node is written to. */
int64_t	node_task_eta(struct node *, const struct task *, int64_t now);
/* name's key, certified (the shell's identity.c): its signatures of the
 * tasks it took can be checked. */
void	node_peer_key(struct node *, const char *name, const uint8_t pk[32],
	    int64_t now);
void	node_each_peer(const struct node *,
	    void (*)(const struct peer *, void *), void *);
/* Where the peer called name takes datagrams, or NULL; with client, its
 * client address if it is alive (its heartbeats tell), or NULL. */
const char *node_peer_addr(const struct node *, const char *name,
	    int client);
uint64_t node_digest(struct node *);
uint64_t node_digest_recomputed(const struct node *);
int	node_digest_buckets_ok(const struct node *);
/* What the last events asked for; the caller empties it. */
struct outbox *node_outbox(struct node *);

/* Client requests.  On error, no change and a reason in err. */
int	node_schedule(struct node *, const struct node_schedule_req *,
	    const char *uuid, int64_t now, char *err, size_t errlen);
int	node_cancel(struct node *, const char *uuid, int64_t now, char *err,
	    size_t errlen);
/* A waiting task held (hold 1: Ready, never taken) or released, or its
 * priority changed (hold.c). */
int	node_hold(struct node *, const char *uuid, int hold, int64_t now,
	    char *err, size_t errlen);
int	node_prio(struct node *, const char *uuid, enum task_prio,
	    int64_t now, char *err, size_t errlen);

/* From our running processes. */
void	node_runner_msg(struct node *, const char *uuid,
	    const struct runner_msg *, int64_t now);
void	node_runner_exit(struct node *, const char *uuid,
	    const struct node_exit *, int64_t now);

/* Our run of uuid wrote a checkpoint, now in our store (its size,
 * BLAKE2b-256 in hex, its file's name in the run dir): the task's
 * newest, copied to other nodes (ckpt.h).  Its seq, or 0 if the run is
 * over (the copy is not kept). */
int64_t	node_checkpoint_made(struct node *, const char *uuid, int64_t bytes,
	    const char *hash, const char *file, int64_t now);
/* The shell's answer to ACT_CKPT_FETCH: seq of uuid's checkpoint is in
 * our store (ok), or could not be fetched from its runner, from. */
void	node_checkpoint_kept(struct node *, const char *uuid, int64_t seq,
	    const char *from, int ok, int64_t now);

/* The shell's answer to ACT_CHECK for the command task uuid: whether
 * this host can run it (its program and directory), why not if not. */
void	node_command_checked(struct node *, const char *uuid, int ok,
	    const char *why, int64_t now);

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
void	node_restore_member(struct node *, const char *name, int64_t now);
void	node_recover(struct node *, int64_t now);
void	node_start(struct node *, int64_t now);
/* A clean stop: our runs go back to Ready for the others. */
void	node_stop(struct node *, int64_t now);
/* About to suspend: our runs go back to Ready, and our heartbeat says
 * "asleep" and how to wake us (wake.h); the shell keeps our volunteer
 * state "asleep" until we are back. */
void	node_sleep(struct node *, int64_t now);

#endif
