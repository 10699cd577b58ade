/*
 * nodestate.h -- struct node, private to the core.  The shell, the
 * simulator and the tools see node.h only: an opaque node, entry points,
 * and read-only views (node_status, node_each_peer, node_next_task).
 *
 * What every sub-protocol shares is the node's configuration, the task
 * map, the ready queue and the outbox; each works on them through their
 * own modules' functions.  Each sub-protocol keeps its own state in a
 * member named after its file, and no other file touches that member
 * (tools/check-layering.sh checks it in `make test`):
 *
 *   node.c       tick       the tick's schedule: timer, housekeeping,
 *                           heartbeats; the receive dispatcher
 *   schedule.c   schedule   SCHEDULE and CANCEL: check, then carry out
 *   cascade.c    (none)     ready, bind, derive, end dependents, redo
 *   order.c      order      the ready queue's keys: workflows, paths
 *   dequeue.c    dequeue    Algorithm 3.2: ranks, races, batches (claims.c,
 *                           lateness.c: its claims and window;
 *                           interactive.c: the interactive rule)
 *   election.c   election   Algorithm 3.1: candidacy, epochs, master
 *   replicate.c  replicate  records, merge, ENQUEUE/ACK, GET_TASK
 *   runwatch.c   runwatch   the tasks Running or unacked: PROGRESS,
 *                           failure detection of runs, duplicates
 *   confirm.c    confirm    votes on ends: one confirmed end per task
 *   voters.c     voters     who votes on an end at once; asking the rest
 *   antientropy.c antientropy  map digest, synchronising with the master
 *   peertab.c    peertab    the other nodes: table, index, liveness
 *   heartbeat.c  heartbeat  our heartbeat: its period, quiet when idle
 *   placement.c  placement  our speed and availability; who goes first
 *   avail.c      avail      our batch window ahead, told for forecasts
 *   estimate.c   estimate   expected ends, queueing counted, for views
 *   retire.c     retire     finished tasks leave for the history
 *   ckpt.c       ckpts      checkpoints: the newest, its copies, who
 *                           may say what it is
 *   retry.c      retry      failed attempts: their wait, another node;
 *                           a node that fails them all stops (quarantine)
 *   run.c        runs       our own runs, volunteering (recover.c: after
 *                           a restart)
 *   cmdcheck.c   cmdcheck   whether a command task can run here
 *   capset.c     capset     what nodes have (heartbeats), tasks need
 *   fairshare.c  fairshare  users' recent usage, for the fairshare order
 *   plausible.c  plausible  peers' values no peer could know: refused
 *   origin.c     origin     the taker's signature over a task's origin
 *   authorship.c authorship who may write a run; the author's signature;
 *                           records awaiting their author's key
 *   quorum.c     quorum     certificates of confirmed ends: signed votes
 *   wake.c       wake       sleeping nodes: kept, and woken for work
 */
#ifndef VOLERY_NODESTATE_H
#define VOLERY_NODESTATE_H

#include "ahead.h"
#include "antientropy.h"
#include "authorship.h"
#include "avail.h"
#include "cascade.h"
#include "capset.h"
#include "cmdcheck.h"
#include "confirm.h"
#include "dequeue.h"
#include "election.h"
#include "estimate.h"
#include "fairshare.h"
#include "fit.h"
#include "heartbeat.h"
#include "interactive.h"
#include "node.h"
#include "order.h"
#include "origin.h"
#include "outbox.h"
#include "peerrate.h"
#include "peerrun.h"
#include "peertab.h"
#include "placement.h"
#include "plausible.h"
#include "quorum.h"
#include "readyq.h"
#include "replicate.h"
#include "retire.h"
#include "retry.h"
#include "ckpt.h"
#include "runwatch.h"
#include "run.h"
#include "schedule.h"
#include "tail.h"
#include "taskmap.h"
#include "verify.h"
#include "voters.h"
#include "wake.h"

/* node.c: when the tick must come. */
struct node_tick {
	int64_t		timer;			/* armed tick, or -1 */
	int64_t		next_housekeeping;	/* -1: stopped */
	int64_t		housekeeping_beat;	/* when it last ran */
	int64_t		next_heartbeat;
};

struct node {
	struct node_config	   cfg;
	const struct taskdesc_set *descs;
	struct taskmap		   map;		/* every task we know */
	struct readyq		   ready;	/* Ready tasks, start order */
	struct outbox		   out;		/* actions for the shell */

	struct node_tick	   tick;
	struct heartbeat	   heartbeat;
	struct schedule		   schedule;
	struct order		   order;
	struct dequeue		   dequeue;
	struct ahead		   ahead;
	struct election		   election;
	struct replicate	   replicate;
	struct confirm		   confirm;
	struct voters		   voters;
	struct antientropy	   antientropy;
	struct peertab		   peertab;
	struct peerrate		   peerrate;
	struct plausible	   plausible;
	struct origin		   origin;
	struct authorship	   authorship;
	struct quorum		   quorum;
	struct placement	   placement;
	struct avail		   avail;
	struct estimate		   estimate;
	struct fit		   fit;
	struct retire		   retire;
	struct retry		   retry;
	struct ckpt		   ckpts;
	struct runwatch		   runwatch;
	struct runs		   runs;
	struct cmdcheck		   cmdcheck;
	struct capset		   capset;
	struct fairshare	   fairshare;
	struct verify		   verify;
	struct tail		   tail;
	struct wake		   wake;
};

/* node.c: helpers every sub-protocol uses. */
void	node_log_task(struct node *, enum log_level, const struct task *,
	    const char *extra);
void	node_notify(struct node *, const struct task *);
/* After an event: take ready tasks if we can, and rearm the tick. */
void	node_settle(struct node *, int64_t now);
/* Our peers should hear of us sooner than our period: heartbeat soon. */
void	node_heartbeat_soon(struct node *, int64_t now);

#endif
