/*
 * simckpt.h -- checkpoints in the simulator (-i): what the shell's
 * store and copies do (ckpts.c, ckstore.c, ckfetch.c), as a model.  A
 * run checkpoints every interval of its work; each node keeps the
 * newest seq of a task it made or copied; a copy takes its size over
 * the LAN; a run starts from the newest checkpoint a live holder has,
 * else from zero.  The work each checkpoint holds is known here, so a
 * restore that gives back what no run made is a violation, and the CPU
 * the runs used beside the work the tasks needed says what was redone.
 */
#ifndef SIM_SIMCKPT_H
#define SIM_SIMCKPT_H

#include <stdint.h>

struct simnet;
struct task;

struct sim_ckpts {
	int64_t		 every_ms;	/* work between checkpoints; 0 none,
					 * -1 not modelled (no -i) */
	int64_t		 bytes;		/* each checkpoint's size */
	struct sim_cktask *v;		/* by task */
	int		 n, cap;
	uint64_t	 made, copies, restored, fetched, from_zero;
	double		 cpu_ms;	/* work the runs did */
	double		 need_ms;	/* work the terminated tasks needed */
};

/* A checkpoint's copy on its way to node to from node from. */
struct sim_copy {
	char		 uuid[40];
	int64_t		 seq;
	int		 from;
};

/* The work of task uuid: the first run's draw (work), the same for every
 * later run -- what a checkpoint holds is a part of it. */
int64_t	simck_work_of(struct simnet *, const char *uuid, int64_t work);
/* A run of task uuid did its whole work: 1 the first time (the work
 * it needed), 0 for later ones (copies, duplicates: wasted). */
int	simck_needed(struct simnet *, const char *uuid);
/* How long a copy of a checkpoint takes (100 Mbit/s and a hop). */
int64_t	simck_copy_ms(const struct simnet *);
/* Node i's run of uuid made checkpoint seq holding work ms of work. */
void	simck_made(struct simnet *, int i, const char *uuid, int64_t seq,
	    int64_t work);
/* Node i starts t: the work it starts from (0: none), and how long the
 * copy to node i took first (*delay). */
int64_t	simck_restore(struct simnet *, int i, const struct task *t,
	    int64_t *delay);
/* ACT_CKPT_FETCH of node i: text from peer. */
void	simck_fetch(struct simnet *, int i, const char *uuid,
	    const char *peer, const char *text);
/* A copy arrived (or its holder went away meanwhile). */
void	simck_copied(struct simnet *, int i, struct sim_copy *);
void	simck_free(struct sim_ckpts *);

#endif
