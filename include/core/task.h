/*
 * task.h -- one task of the task map (DESIGN.md section 2).
 *
 * A task is plain data: the core owns it, the codecs encode it, nothing
 * here touches a socket, clock or file.
 */
#ifndef VOLERY_TASK_H
#define VOLERY_TASK_H

#include <stdint.h>

#include "bounds.h"

enum task_state {
	TASK_SUBMITTED,		/* waiting for inputs */
	TASK_READY,		/* in the ready queue */
	TASK_RUNNING,
	TASK_TERMINATED,
	TASK_CANCELLED,
	TASK_FAILED,
};
#define TASK_NSTATES 6

enum task_prio {
	PRIO_LOW,
	PRIO_INTERACTIVE,
};

/* Whether this node runs the task's process, and how that run is going. */
enum task_run {
	RUN_NONE,		/* no process of ours */
	RUN_ACTIVE,		/* our process is running the task */
	RUN_STOPPING,		/* asked to stop; slot held until it exits */
};

/* Input k of a task: output `nth` (1-based) of task `from`. */
struct task_input {
	char	 from[UUID_STRLEN + 1];
	int	 nth;
	char	*dataset;		/* NULL until bound */
};

/* A SCHEDULE request's input: output `nth` of the task `uuid`. */
struct task_binding {
	char	uuid[UUID_STRLEN + 1];
	int	nth;
};

/*
 * A command task runs a program of the node's host instead of an
 * executable with a description (volery run, <command>): argv exactly as
 * given, no shell.  Set once at SCHEDULE and replicated with the task.
 * Its outputs are declared: "file:PATH" (the file, once the command
 * exits 0, is the output) or "line:REGEX" (the first line of its stdout
 * that matches: the first group, or the whole match).
 */
struct task_cmd {
	int		  argc;
	char		**argv;
	int		  nenv;
	char		**env;		/* "NAME=value" */
	char		 *cwd;		/* NULL: its private run directory */
	char		 *out;		/* stdout to this file; NULL: kept
					 * by the node that ran it */
	char		 *err;		/* the same for stderr */
	int64_t		  time_limit_ms;	/* 0: none */
	int		  nouts;
	char		**outs;
	int		  nsecrets;
	char		**secrets;	/* names of --secret-env variables */
	/* --checkpoint: the file in its run dir it writes its checkpoints
	 * to, or NULL; --checkpoint-signal: sent to it before a vacate so
	 * that it writes one last (0: none). */
	char		 *ckpt_file;
	int		  ckpt_signal;	/* --in: the files its run reads, fetched into its run dir from
	 * the node that took it, each "<bytes>:<BLAKE2b-256 hex>:<path>"
	 * (task_cmd_in_parse). */
	int		  nins;
	char		**ins;
	char		 *in_dir;	/* where they are on the taker's host,
					 * the paths relative to it */
};

/*
 * The fields every datagram about a task reads come first, the long
 * strings last: a 1000-node pool keeps a million of these, and each
 * cache line a merge touches is a miss.
 */
struct task {
	char		 uuid[UUID_STRLEN + 1];
	enum task_state	 state;
	enum task_prio	 prio;
	int		 aged;		/* low task promoted by ageing */
	uint64_t	 ver;		/* replicated change counter */
	/*
	 * A final state is proposed, then confirmed by a majority of the
	 * nodes (confirm.c): only a confirmed end is told to clients as
	 * final and binds dependents.  round: the confirmation round of
	 * the final state held (1 first; higher after a split vote).
	 */
	int		 confirmed;
	int		 round;
	int		 progress;	/* 0-100 */
	int		 suspended;	/* Running, but stopped: the user is back */
	int		 held;		/* waiting, never taken until released */
	int64_t		 begin_ms;	/* not taken before (epoch ms); 0 */
	int64_t		 deadline_ms;	/* to end by (epoch ms); 0: none.  Set
					 * once at SCHEDULE, replicated */
	int64_t		 est_ms;	/* its submitter's estimate of its run
					 * time at the pool's average speed;
					 * 0: none.  Set once at SCHEDULE,
					 * replicated */
	int		 deadline_late;	/* forecast past it at SCHEDULE: ordered
					 * as a task without one (readyq.h) */
	int64_t		 retry_ms;	/* after a failed attempt: not taken
					 * before (epoch ms); 0 */
	double		 fair_key;	/* local: its user's usage (fairshare.c) */

	int64_t		 submit_ms;	/* wall clock, ms since the epoch */
	int64_t		 ready_ms;
	int64_t		 start_ms;
	int64_t		 end_ms;

	int		 ninputs;
	struct task_input *inputs;
	int		 noutputs;
	char		**outputs;
	int		 attempts;	/* runs started */
	int		 failures;	/* runs that ended without a result */

	/* Local, never replicated or journaled. */
	size_t		 ageq_pos;	/* readyq.c: 1 + its place in the
					 * ageing heap; 0 not in it */
	enum task_run	 run;
	int64_t		 heard_ms;	/* last sign of its remote run */
	int		 unacked;	/* ENQUEUE not yet acked by master */
	int		 suspect;	/* its remote run fell silent: asked */
	int64_t		 replied_ms;	/* last correction sent to a peer */
	uint64_t	 digest_part;	/* its share of the map digest */
	int		 in_digest;	/* digest_part is counted */
	/* The ready queue's keys, derived from the map (order.c). */
	int		 urgent;	/* its workflow has an interactive task */
	int64_t		 wf_submit_ms;	/* its workflow's first submit time */
	int		 path_left;	/* tasks on the longest path from it to
					 * a last task, itself included */
	int64_t		 rest_ms;	/* the run time that path is expected
					 * to take (placement_rank_ms) */

	/* The first task of its workflow, where its inputs lead back to
	 * ("" if that is itself): set once at SCHEDULE, replicated. */
	char		 workflow[UUID_STRLEN + 1];
	/* A task of an array (volery run --array, <foreach>): the array's
	 * uuid ("" if none), its value, and how many of the array may run
	 * at once (0: any).  Set once at SCHEDULE, replicated. */
	char		 array[UUID_STRLEN + 1];
	int		 array_index;
	int		 array_max;
	/* Checked by replicas (volery run --verify N, verify.c): on the
	 * task the user sees, N and replica_of ""; on each of its N runs,
	 * N, the task's uuid and its index (0..N-1).  The task itself
	 * never runs: its end is derived from its replicas'.  Set once at
	 * SCHEDULE, replicated. */
	int		 verify;
	char		 replica_of[UUID_STRLEN + 1];
	int		 replica_index;
	/* What it needs of a node: cores (0 counts as 1), memory (MB, 0:
	 * nothing counted) and tags (a comma list, or NULL).  Set once at
	 * SCHEDULE, replicated. */
	int		 req_cores;
	int64_t		 req_memory_mb;
	char		*req_tags;
	char		 running_on[NAME_MAXLEN + 1];	/* "" if none */
	char		 exec[NAME_MAXLEN + 1];
	char		*path;		/* -p, or NULL */
	char		*params;	/* -x, or NULL */
	char		 scheduled_by[NAME_MAXLEN + 1];
	char		 client[ADDR_MAXLEN + 1];
	/* Who scheduled it ("" unknown): a local user's login name, or
	 * "operator" (a remote client with the operator key).  Set once at
	 * SCHEDULE, replicated. */
	char		 user[USER_MAXLEN + 1];
	/* That user's uid on the node that scheduled it (-1 unknown: the
	 * operator key, or no local account behind the request).  A node
	 * runs the task as the account of that name only if it has this
	 * uid there too (run/owner.c). */
	int64_t		 uid;
	/* Accounting of its last run, from wait4 on the node that ran it
	 * (-1: none measured): exit status (0-255, or 256 + the signal that
	 * killed it), CPU time (user + system, ms) and peak resident memory
	 * (KiB).  Replicated with the end that run made. */
	int		 exit_status;
	int64_t		 cpu_ms;
	int64_t		 maxrss_kib;
	char		 reason[REASON_MAXLEN + 1];	/* why Cancelled/Failed */
	char		 run_error[REASON_MAXLEN + 1];	/* local: run has failed */
	int		 run_final;	/* local: and no attempt may follow */
	int		 throttled;	/* local: our run slowed, the user back */
	/* local: our run is vacated, asked for a last checkpoint first;
	 * its task goes back to Ready once the process is gone. */
	int		 vacating;
	struct task_cmd	*cmd;		/* a command task, or NULL */
	/* Its taker's signature over its origin (origin.c), base64url, or
	 * NULL; and, local, what this node found of it: 1 good (or heard
	 * from its taker itself), -1 false, 0 not checked yet (its taker's
	 * key unknown). */
	char		*sig;
	int		 origin_ok;
	/* Who wrote its run's part -- a start, an end, a cancel -- and that
	 * node's signature over it (authorship.c), or "" and NULL (a state
	 * no one signs, or keys off); and, local, the statement the
	 * signature covers, checked or made here (esg_ok). */
	char		 eby[NAME_MAXLEN + 1];
	char		*esg;
	int		 esg_ok;
	uint8_t		 esg_for[32];
	/* A confirmed end's certificate: the votes of a majority, each its
	 * voter's signature (quorum.c), or NULL; and, local, what this node
	 * found of it: 1 it holds (or we made it), 2 taken on its runner's
	 * word, -1 it does not, 0 not checked yet (an end we held already,
	 * checked when it matters).
	 * vote: our signed vote, only in the VOTE we send. */
	char		*qc;
	int		 qc_ok;
	char		*vote;
	/* A replica's result as its runner hashed it (BLAKE2b-256 of its
	 * stdout, exit status and output files, hex), or NULL: signed
	 * with its end. */
	char		*digest;
	/* Its failed attempts, oldest first, the latest TRIES_MAX of them:
	 * "node:status,..." with status as exit_status (-1: none measured),
	 * or NULL.  Each is written by the node whose run failed
	 * (retry.c); replicated. */
	char		*tries;
	/* Its newest checkpoint, kept by the pool (taskckpt.c, ckpt.c):
	 * "seq:bytes:made_ms:hash:file:holder,...", or NULL.  Written by
	 * its runner; replicated and signed with its run. */
	char		*ckpt;
	int64_t		 ckpt_kept;	/* local: the seq our store holds */
	int64_t		 ckpt_want;	/* local: the seq we are fetching */
	int64_t		 ckpt_asked_ms;	/* local: copies last asked for */
	/* local: our run's newest checkpoint, as ckpt's text, while no
	 * other node keeps a copy (ckpt.h); NULL none. */
	char		*ckpt_next;
};

/* The uuid of t's workflow: its first task's. */
const char	*task_workflow(const struct task *);

struct task	*task_new(const char *uuid, const char *exec, int ninputs);
void		 task_free(struct task *);
int		 task_set_string(char **, const char *);
int		 task_set_outputs(struct task *, char *const *, int);
/* Copy the end (state, runner, outputs, reason, times) of src into t,
 * and the inputs it ran on; -1 out of memory. */
int		 task_copy_end(struct task *, const struct task *src);
/* Are a and b the same string, or both NULL? */
int		 task_same_str(const char *, const char *);
/* Have a and b the same outputs? */
int		 task_same_outputs(const struct task *, const struct task *);
/* Is t the task of a --verify group (never run; its replicas are)? */
int		 task_is_verified(const struct task *);
/* Is t one replica of such a task? */
int		 task_is_replica(const struct task *);
/* t, a replica (of --verify's or the tail's), counted from 1 in its
 * kind. */
int		 task_replica_number(const struct task *);
/* The uuid of replica i of the task of uuid `of` (derived: every node
 * finds a task's replicas without a list). */
void		 task_replica_uuid(const char *of, int i,
		    char out[UUID_STRLEN + 1]);

/* Do a and b (one task's records) agree on what only its submitting node
 * set: program, owner, submit time, inputs, needs, array? */
int		 task_same_origin(const struct task *, const struct task *);
int		 task_inputs_bound(const struct task *);
/* How many outputs t has when it ends well: its command's declared
 * outputs, or -1 (its description says). */
int		 task_cmd_noutputs(const struct task *);
/* An --in item of a checked command: its size, hash and path (into
 * item); -1 if it is not "<bytes>:<64 hex>:<path>" with the path
 * relative, without "." or ".." or empty parts. */
int		 task_cmd_in_parse(const char *item, int64_t *bytes,
		    char hash[DIGEST_HEX + 1], const char **path);

/* A copy of c (NULL: out of memory), and its freeing. */
struct task_cmd	*task_cmd_dup(const struct task_cmd *);
void		 task_cmd_free(struct task_cmd *);
/* Why c cannot be a command ("" if it can): the limits of bounds.h, an
 * environment variable without a name, an output of neither kind. */
int		 task_cmd_check(const struct task_cmd *, char *why, size_t);

int		 task_is_final(enum task_state);
/* Final and confirmed by a majority: clients and dependents rely on it. */
int		 task_is_settled(const struct task *);
/* Terminated and confirmed: its outputs are the ones kept. */
int		 task_result_kept(const struct task *);
const char	*task_state_name(enum task_state);
const char	*task_shown_state(const struct task *);
int		 task_state_parse(const char *, enum task_state *);
const char	*task_prio_name(enum task_prio);
int		 task_prio_parse(const char *, enum task_prio *);

uint64_t	 task_hash(const char *);
int		 task_uuid_valid(const char *);
int		 task_name_valid(const char *);
int		 task_token_valid(const char *, int);
/* A comma list of at most max names (task_name_valid), CAPS_TEXT_MAX
 * bytes at most; "" is an empty list. */
int		 task_names_valid(const char *, int max);
/* Does the comma list hold name? */
int		 task_names_have(const char *list, const char *name);
/* A failed-attempt list ("node:status,...", task.h's tries), at most
 * TRIES_MAX items, statuses in -1..320. */
int		 task_tries_valid(const char *);
/* Did node fail an attempt of the list? */
int		 task_tries_have(const char *tries, const char *node);
/* The next attempt of a list at *p (valid: task_tries_valid), moving
 * *p past it: its node and status; 0, or -1 at its end. */
int		 task_tries_next(const char **p, char node[NAME_MAXLEN + 1],
		    int *status);
/* Add node's failed attempt to t's list, the oldest dropped past
 * TRIES_MAX; -1 out of memory. */
int		 task_tries_add(struct task *, const char *node, int status);
/* A checkpoint as its record's text says it (task.h's ckpt). */
struct task_ckpt {
	int64_t		 seq;		/* 1, 2, ... each newer */
	int64_t		 bytes;
	int64_t		 made_ms;
	char		 hash[DIGEST_HEX + 1];	/* BLAKE2b-256, hex */
	char		 file[CKPT_FILE_MAX + 1];	/* in the run dir */
	int		 nholders;
	char		 holders[CKPT_HOLDERS_MAX][NAME_MAXLEN + 1];
};
/* Is s a checkpoint's text?  Read it into *c (NULL: only check). */
int		 task_ckpt_parse(const char *s, struct task_ckpt *c);
/* c as text into buf (CKPT_TEXT_MAX + 1 bytes); -1 if it is not valid. */
int		 task_ckpt_format(const struct task_ckpt *c, char *buf,
		    size_t size);
/* A checkpoint's file name: 1 to 64 of [A-Za-z0-9._-], not "." or "..". */
int		 task_ckpt_file_valid(const char *);
/*
 * A command's checkpoint file "auto" is a transparent checkpoint: its
 * node dumps the stopped process tree with CRIU at a vacate (into that
 * file), and the next run restores it.  Such a task needs a node that
 * offers the tag "criu".
 */
#define CKPT_AUTO	"auto"
#define CKPT_AUTO_TAG	"criu"
int		 task_ckpt_auto(const struct task *);
/* Does c list node among its holders? */
int		 task_ckpt_held_by(const struct task_ckpt *c, const char *node);
/* The cores t takes: its request, at least 1. */
int		 task_cores(const struct task *);

#endif
