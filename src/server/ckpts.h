/*
 * ckpts.h -- the shell's part of checkpoints kept by the pool (the
 * core's: ckpt.h).  A run says it wrote one (CHECKPOINT <file>): the
 * store takes a copy and the core makes it the task's newest.  The
 * core asks for a copy of another node's (ACT_CKPT_FETCH): fetched,
 * checked, told.  A run about to start whose task has a checkpoint we
 * do not keep: fetched first from a node that does, its maker's
 * holders in turn.  A task that ended: its checkpoints go.
 */
#ifndef VOLERY_CKPTS_H
#define VOLERY_CKPTS_H

#include <stddef.h>
#include <stdint.h>

struct event_base;

struct node;
struct task;

/* Once the fetch before a start is over (done or given up). */
typedef void	(*ckpts_ready_cb)(const char *uuid);

/* after(): the core heard of an event of ours (a fetch's end). */
int	ckpts_init(struct event_base *, struct node *, const char *state_dir,
	    int64_t max_bytes, ckpts_ready_cb, void (*after)(void), char *err,
	    size_t errlen);
/* The node stops: fetches and watches under way end. */
void	ckpts_close(void);
/* Our run of t started: a command's checkpoint file is watched. */
void	ckpts_started(const struct task *);
/* Our run of uuid ended (runner_hooks' leaving): its last write of the
 * file is taken, and the watch ends. */
void	ckpts_leaving(const char *uuid);
/* Our run of uuid wrote file into its run dir. */
void	ckpts_made(const char *uuid, const char *file);
/* ACT_CKPT_FETCH. */
void	ckpts_fetch(const char *uuid, const char *from, const char *text);
/* Is t's newest checkpoint to be fetched before it starts here?  1: a
 * fetch is under way, and ready() says when to start; 0: start now. */
int	ckpts_before_start(const struct task *);
/* After a restart, the map restored: the checkpoints of tasks that
 * ended while we were away go. */
void	ckpts_sweep(void);
/* t was journaled: if it ended, its checkpoints go. */
void	ckpts_journaled(const struct task *);

#endif
