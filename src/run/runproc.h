/*
 * runproc.h -- a run as the runner keeps it (runner.c), shared with
 * runcriu.c, which dumps and restores runs with CRIU.  Nothing else
 * sees inside a run.
 */
#ifndef VOLERY_RUNPROC_H
#define VOLERY_RUNPROC_H

#include <sys/queue.h>
#include <sys/types.h>

#include <stdint.h>

#include "bounds.h"
#include "runas.h"
#include "stop.h"

struct bufferevent;
struct command_run;
struct criu_dump;
struct job_spec;
struct leftwait;
struct output;
struct rusage;
struct runner_msg;
struct scratch;
struct strings;
struct task;

struct run {
	char			 uuid[UUID_STRLEN + 1];
	char			 exec[NAME_MAXLEN + 1];
	pid_t			 pid;
	int			 in_fd;
	struct bufferevent	*out;
	struct bufferevent	*err;
	int			 out_eof, err_eof;
	int			 discard_out, discard_err;
	int			 exited, code, signo;
	struct leftwait		*left;		/* for what it left */
	int64_t			 cpu_ms;	/* user + system, from wait4 */
	long			 maxrss_kib;
	int			 cpu_seconds;	/* its limit, 0 none */
	struct stopper		 stop;		/* once asked to end */
	struct scratch		*scratch;	/* its run dir's bound */
	char			 fail_why[REASON_MAXLEN + 1];	/* by us */
	struct output		*cap;		/* its stdout and stderr kept */
	/* The TERMINATED it wrote, held until it exits: its result counts
	 * with what the run cost (wait4), and nothing it says after. */
	struct runner_msg	*result;
	/* A command (struct task_cmd): its stdout is data, not lines of
	 * the runner protocol; its exit status and declared outputs make
	 * its result. */
	struct command_run	*cmd;
	struct runas		 ra;		/* whom it runs as (owner.h) */
	int			 slot;		/* a slot user's, or 0 */
	/* A transparent checkpoint (runcriu.c): CRIU dumping the run, or
	 * restoring it as the tree of this pid. */
	struct criu_dump	*dump;
	pid_t			 restoring;
	int64_t			 criu_ms;	/* when CRIU began */
	int			 restart;	/* CRIU failed to restore it */
	TAILQ_ENTRY(run)	 entry;
};

/* Run r's restore, if t's transparent checkpoint was restored into dir
 * (checkpoint not NULL): CRIU in spec, its argv and env filled; the
 * pid the tree will have, or 0 to start from the beginning. */
pid_t	runcriu_prepare(const struct task *t, const char *checkpoint,
	    const char *dir, const struct runas *ra, struct strings *k,
	    struct job_spec *spec, const char **argv, char **env);
/* CRIU's restore of r ended with status: 0 if r goes on (the restored
 * tree is waited for with exited), else -1: r is to start again, from
 * the beginning (r->restart). */
int	runcriu_restored(struct run *r, int status,
	    void (*exited)(pid_t, int, const struct rusage *, void *));
/* Dump r with CRIU, else stop it as any run; then over(r). */
void	runcriu_dump(struct run *r, const char *dir, void (*over)(struct run *));

#endif
