/*
 * stop.h -- stopping a run step by step: CANCEL on its stdin (a
 * described task's runner protocol) or a command's checkpoint signal,
 * then SIGTERM, then SIGKILL to its process group, each after the grace
 * period if it is still there.
 */
#ifndef VOLERY_STOP_H
#define VOLERY_STOP_H

#include <sys/types.h>

struct event;
struct event_base;

struct stopper {
	const char	*uuid, *exec;	/* for the log: the run's own */
	pid_t		 pid;		/* its process group */
	int		 in_fd;		/* its stdin, -1: a command */
	const int	*exited;	/* the run's: nothing left to stop */
	int		 stage;		/* 0 none, 1 CANCEL, 2 TERM, 3 KILL */
	int		 lingering;	/* it outlived its own result */
	struct event	*timer;
	int		 first_signal;	/* a command's, before SIGTERM; 0 */
};

void	stop_init(struct event_base *, int grace_ms);
/* Stop it (if not stopping yet): 1 if this began it.  A command is
 * sent first_signal first if not 0 (its --checkpoint-signal). */
int	stop_begin(struct stopper *, int first_signal);
/* It said its result but goes on: SIGTERM after the grace period. */
void	stop_linger(struct stopper *);
void	stop_free(struct stopper *);

#endif
