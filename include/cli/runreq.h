/*
 * runreq.h -- the RUN request line of a command task, every value
 * %XX-escaped (lex_escape), for `volery run` and `volery submit`.
 */
#ifndef VOLERY_RUNREQ_H
#define VOLERY_RUNREQ_H

#include <stddef.h>

struct task_binding;
struct task_cmd;

/* A task of an array: RUN's and SCHEDULE's -A. */
struct runreq_array {
	char	uuid[37];
	int	index;
	int	max_running;
};

/* The line (without newline) into buf; -1 if it is longer than a
 * request may be.  array may be NULL. */
int	runreq_format(char *buf, size_t size, const char *name,
	    const char *prio, const struct task_cmd *,
	    const struct task_binding *, int nbind,
	    const struct runreq_array *array);
/* A task name from a program: its base name in the characters a name
 * may hold ("command" if none). */
void	runreq_name(const char *prog, char *name, size_t size);

#endif
