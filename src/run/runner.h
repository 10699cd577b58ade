/*
 * runner.h -- run task executables as child processes (DESIGN.md
 * section 4): own process group, no shell, stdout lines to the node
 * (TERMINATED once the process exited), stderr to the log, CANCEL then
 * SIGTERM then SIGKILL to stop.  Runs are unprivileged, limited and in a
 * directory of their own.
 */
#ifndef VOLERY_RUNNER_H
#define VOLERY_RUNNER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct event_base;
struct runas;
struct task;
struct taskdesc;

struct node_exit;
struct runner_msg;

struct runner_hooks {
	/* What the run said (the runner protocol's lines, a command's
	 * PROGRESS lines), but its result: that comes with its end. */
	void	(*msg)(const char *uuid, const struct runner_msg *);
	/* The process ended and its output is drained: how, what it cost,
	 * and its result (TERMINATED, a command's ERROR) if any. */
	void	(*exit)(const char *uuid, const struct node_exit *);
	/* The process ended: its run dir is about to go. */
	void	(*leaving)(const char *uuid);
	/* CRIU could not restore the run: it is gone, untold; start it
	 * again, and it starts from the beginning (runcriu.c). */
	void	(*restart)(const char *uuid);
};

struct runner_opts {
	const char	*tasks_dir;
	int		 nice;		/* 0 or 19 */
	int		 idle_io;	/* idle I/O priority */
	int		 grace_ms;	/* between CANCEL, SIGTERM, SIGKILL */
	int64_t		 max_procs;	/* a run's processes; 0 any */
	int64_t		 memory_mb;	/* a run's memory without --mem; 0 any */
};

int	runner_init(struct event_base *, const struct runner_hooks *,
	    const struct runner_opts *);
/* Start t as its description d says: its limits, a run directory of its
 * own (rundir.h) as the working directory, as the run user.  A command
 * (t->cmd, d NULL) runs its own argv in its own directory; its stdout
 * and stderr are kept as they are (output.h), its exit status and
 * declared outputs make its result.  secrets: its --secret-env
 * variables, "NAME=value" NULL-terminated (secrets.h), or NULL. */
int	runner_start(const struct task *t, const struct taskdesc *d,
	    char *const *secrets, char *err, size_t errlen);
/* Stop the run (stop.h); a command is sent first_signal first, if not
 * 0 (its --checkpoint-signal, before a vacate). */
void	runner_stop(const char *uuid, int first_signal);
/* A vacate of a transparent checkpoint's run: CRIU dumps it (runcriu.c);
 * if it cannot, the run is stopped as runner_stop() does. */
void	runner_dump(const char *uuid);
/* SIGSTOP (stop 1) or SIGCONT (0) the run's whole process group; with
 * throttle, slow it down (1) or free it (0) instead (throttle.h). */
void	runner_suspend(const char *uuid, int stop, int throttle);
/* Our runs' process groups (their leaders' pids), at most max. */
int	runner_groups(pid_t *, int max);
/* CPU, in clock ticks, of the runs that ended (wait4), so that the idle
 * probe counts all our load as ours. */
uint64_t runner_reaped_ticks(void);
void	runner_shutdown(void);

#endif
