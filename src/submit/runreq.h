/*
 * runreq.h -- the RUN request line of a command task, every value
 * %XX-escaped (lex_escape), for `volery run` and `volery submit`.
 */
#ifndef VOLERY_RUNREQ_H
#define VOLERY_RUNREQ_H

#include <stddef.h>
#include <stdint.h>

struct task_binding;
struct task_cmd;

/* What RUN and SCHEDULE take besides the command: the task's array
 * (-A; uuid "" for none) and what it needs of a node (-c, -m, -g). */
struct runreq_extra {
	char		 array[37];
	int		 index;
	int		 max_running;
	int		 cores;		/* 0: not asked */
	int64_t		 memory_mb;
	const char	*tags;		/* NULL: none */
	int64_t		 begin_ms;	/* not before (ms since the epoch) */
	int64_t		 deadline_ms;	/* to end by (ms since the epoch) */
	int		 deadline_strict;	/* or it is refused */
	int		 verify;	/* -V: nodes to agree; 0 none */
	int64_t		 est_ms;	/* -T: its run time, estimated */
	/* RUN -S: --secret-env "NAME=value" words (values kept by the
	 * node that takes it, given only to the one that runs it). */
	char *const	*secrets;
	int		 nsecrets;
};

/* extra's options, appended to the line at buf[*off]; 0, or -1 if they
 * do not fit. */
int	runreq_extra(char *buf, size_t size, size_t *off,
	    const struct runreq_extra *);
/* The line (without newline) into buf; -1 if it is longer than a
 * request may be.  extra may be NULL. */
int	runreq_format(char *buf, size_t size, const char *name,
	    const char *prio, const struct task_cmd *,
	    const struct task_binding *, int nbind,
	    const struct runreq_extra *extra);
/* A task name from a program: its base name in the characters a name
 * may hold ("command" if none). */
void	runreq_name(const char *prog, char *name, size_t size);

#endif
