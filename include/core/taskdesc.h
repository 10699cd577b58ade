/*
 * taskdesc.h -- what a task executable needs and produces, from its XML
 * description (thesis Listing 4.1 plus the number of outputs).
 */
#ifndef VOLERY_TASKDESC_H
#define VOLERY_TASKDESC_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

struct taskdesc_input {
	char	type[NAME_MAXLEN + 1];	/* "" accepts any task type */
	int	nth;			/* 0 accepts any output */
};

#define LIMIT_CPU_SECONDS_MAX	(365 * 86400)
#define LIMIT_MEMORY_MB_MAX	(16 * 1024 * 1024)	/* 16 TiB */
#define LIMIT_OPEN_FILES_MAX	(1024 * 1024)

/* setrlimit() values for every run of the executable; 0: no limit. */
struct taskdesc_limits {
	int	cpu_seconds;	/* RLIMIT_CPU: SIGXCPU, then SIGKILL 1 s on */
	int	memory_mb;	/* RLIMIT_AS */
	int	open_files;	/* RLIMIT_NOFILE */
};

/* What every run of the executable needs of a node (<requires>). */
struct taskdesc_needs {
	int		cores;		/* 0: one */
	int64_t		memory_mb;	/* 0: not counted */
	char		tags[CAPS_TEXT_MAX + 1];	/* comma list */
};

struct taskdesc {
	char			 name[NAME_MAXLEN + 1];
	char			 type[NAME_MAXLEN + 1];
	int			 ninputs;
	struct taskdesc_input	 inputs[TASK_INPUTS_MAX];
	int			 noutputs;
	int			 needs_path;	/* -p is required */
	struct taskdesc_limits	 limits;
	struct taskdesc_needs	 needs;
	/* Why this node cannot run it ("" if it can): the shell's say,
	 * e.g. the run user cannot execute the program. */
	char			 cannot_run[REASON_MAXLEN + 1];
};

struct task;

struct taskdesc_set {
	struct taskdesc	*v;
	size_t		 n;
};

const struct taskdesc *taskdesc_find(const struct taskdesc_set *,
		    const char *);
int		 taskdesc_add(struct taskdesc_set *, const struct taskdesc *);
void		 taskdesc_clear(struct taskdesc_set *);
/* Does set's description of t's program let t run here (its inputs,
 * its -p, the program there)?  1, or 0 with why. */
int		 taskdesc_admissible(const struct taskdesc_set *,
		    const struct task *, char *why, size_t whylen);

#endif
