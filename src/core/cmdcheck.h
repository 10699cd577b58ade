/*
 * cmdcheck.h -- whether this node can run a command task (its program
 * found, and its working directory there) or a described task of a
 * known owner, as whom it would run (the owner's account here, run/
 * owner.h).  Looking is the shell's (a file system or the accounts are
 * no business of the core): the first time an owner's directory and
 * program come up, the core asks (ACT_CHECK) and keeps off the task
 * until node_command_checked() answers.
 */
#ifndef VOLERY_CMDCHECK_H
#define VOLERY_CMDCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

struct node;
struct task;

/* One directory and program, once asked about. */
struct cmdcheck_entry {
	uint64_t	 hash;
	char		*key;		/* owner, uid, cwd, program */
	int		 state;		/* CMDCHECK_* */
	int64_t		 when;		/* answered, or asked */
	char		 asked_for[UUID_STRLEN + 1];	/* the task asked */
	char		 why[REASON_MAXLEN + 1];	/* a "no"'s reason */
};

struct cmdcheck {
	struct cmdcheck_entry	*v;
	size_t			 n, cap;
	int64_t			 now;	/* the last event's time */
};

void	cmdcheck_init(struct node *);
void	cmdcheck_free(struct node *);
/* Whether the command t may run here now; why, if not. */
int	cmdcheck_admissible(struct node *, const struct task *, char *why,
	    size_t whylen);
/* Forget the "no"s older than a minute, and questions unanswered as
 * long: the share may be mounted, the program installed since. */
void	cmdcheck_tick(struct node *, int64_t now);

#endif
