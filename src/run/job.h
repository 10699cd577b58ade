/*
 * job.h -- child processes: the one place volery forks (the task runner
 * and the idle probes' commands are built on it), in a cgroup from
 * birth where it has one.  Signals are blocked
 * across fork; the child restores every signal's default disposition
 * (SIGPIPE is ignored in the node) and an empty mask, keeps only its
 * three standard descriptors, and runs in a process group of its own.
 * Children are reaped by pid in one SIGCHLD handler.
 */
#ifndef VOLERY_JOB_H
#define VOLERY_JOB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

struct event_base;
struct runas;

#define JOB_LIMITS_MAX	6

struct job_limit {
	int		 resource;		/* RLIMIT_* */
	struct rlimit	 value;
};

struct job_spec {
	const char	 *path;			/* executed with execv */
	char *const	 *argv;
	char *const	 *env;			/* "NAME=value" set, or NULL */
	const struct runas *user;		/* switched to, or NULL */
	const char	 *cwd;			/* or NULL: the node's */
	int		  nlimits;		/* set before the switch */
	struct job_limit  limits[JOB_LIMITS_MAX];
	int		  nice;			/* 0: as the node */
	int		  idle_io;		/* the idle I/O class */
	int		  die_with_parent;	/* PR_SET_PDEATHSIG, SIGKILL */
	const char	 *cgroup;		/* its cgroup's directory, where
						 * it is born; NULL or "" */
	int		  stdin_pipe;		/* else /dev/null */
	int		  stderr_pipe;		/* else /dev/null */
	/* If the child cannot become the program, "ERROR cannot execute
	 * PATH: reason" (or what else failed) on stdout: the runner
	 * protocol's way to say a run failed. */
	int		  exec_error_line;
	/* Run with no_new_privs (a run CRIU may dump: criu.c). */
	int		  no_new_privs;
	/* CRIU as the run's user: these capabilities kept across the
	 * switch of user (ambient), its stdout and stderr pipes given to
	 * the user (CRIU reopens them); 0 for any other child. */
	uint64_t	  keep_caps;
};

/* The parent's ends of the child's pipes; -1 where there is none. */
struct job_fds {
	int	in, out, err;
};

/* Called once the child was reaped, with its wait4() status. */
struct job_exit {
	void	(*cb)(pid_t, int status, const struct rusage *, void *);
	void	 *arg;
};

int	job_init(struct event_base *);
/* Fork and exec; the pid, or -1 with the reason in err.  exit may be
 * NULL: the child is reaped and nobody told. */
pid_t	job_start(const struct job_spec *, const struct job_exit *,
	    struct job_fds *, char *err, size_t errlen);
/* Wait for pid, a child we did not fork ourselves (CRIU restored it as
 * its sibling), as for one job_start() started; -1 if out of memory. */
int	job_adopt(pid_t, const struct job_exit *);
/* Wait for pid now, blocking (at start only: a check's few ms). */
int	job_wait(pid_t, int *status);
/* Nobody waits for pid any more (its owner is gone): reap it quietly. */
void	job_forget(pid_t);
/* Is pid a child we started and have not reaped? */
int	job_running(pid_t);
void	job_shutdown(void);
/* fn is called after each SIGCHLD's children are reaped. */
void	job_on_reaped(void (*fn)(void));
/*
 * Fork a watchdog: a child running fn(3), fd 3 the read end of a pipe
 * whose write end is returned (close-on-exec, so no run inherits it: it
 * closes when the node ends, however it ends); -1 if it cannot.  fn never
 * returns.
 */
int	job_watchdog(void (*fn)(int));

#endif
