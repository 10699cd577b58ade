/*
 * runreq.h -- the RUN request line of a command task, every value
 * %XX-escaped (lex_escape), for `volery run` and `volery submit`.
 */
#ifndef VOLERY_RUNREQ_H
#define VOLERY_RUNREQ_H

#include <stddef.h>

struct task_binding;
struct task_cmd;

/* The line (without newline) into buf; -1 if it is longer than a
 * request may be. */
int	runreq_format(char *buf, size_t size, const char *name,
	    const char *prio, const struct task_cmd *,
	    const struct task_binding *, int nbind);
/* A task name from a program: its base name in the characters a name
 * may hold ("command" if none). */
void	runreq_name(const char *prog, char *name, size_t size);

#endif
