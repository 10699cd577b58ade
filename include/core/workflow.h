/*
 * workflow.h -- a workflow file (DESIGN.md section 7) once read, and
 * its check against the task descriptions: everything `volery submit`
 * can know is wrong before it sends anything.  Pure; the XML reading is
 * in src/submit/wfload.c.
 */
#ifndef VOLERY_WORKFLOW_H
#define VOLERY_WORKFLOW_H

#include <stddef.h>

#include "bounds.h"
#include "nameidx.h"
#include "task.h"
#include "taskdesc.h"

#define WORKFLOW_TASKS_MAX 4096

/* An id of a <foreach>'s task, with its value: "fit[17]". */
#define WF_ID_MAXLEN (NAME_MAXLEN + 16)

struct wf_input {
	char	 task[WF_ID_MAXLEN + 1];	/* an id of the file, or a uuid */
	int	 output;		/* 1-based */
	long	 line;
};

struct wf_task {
	char		 id[WF_ID_MAXLEN + 1];
	char		 name[NAME_MAXLEN + 1];
	char		*path;		/* NULL if none */
	char		*params;
	int		 prio_set;	/* own priority= */
	char		 prio[16];
	long		 line;
	int		 ninputs;
	/* Room for TASK_INPUTS_MAX once it has one (workflow_inputs):
	 * most tasks have none, and a file of thousands must not zero
	 * megabytes (issue 40). */
	struct wf_input	*inputs;
	int		 ninputs_seen;	/* may exceed TASK_INPUTS_MAX */
	/* A <command>: what it runs (name: its task name), NULL for a
	 * <task> of a description. */
	struct task_cmd	*cmd;
	/* Its <in> paths as written, relative to cmd->in_dir: volery
	 * submit hashes them into cmd->ins where the files are. */
	int		 nin_paths;
	char		**in_paths;
	/* A task of a <foreach>: its array (the same number for every value
	 * of one task of the file, 0 for none), value and limit. */
	int		 array;
	int		 array_index;
	int		 array_max;
	int		 foreach;	/* while loading: its <foreach>, 1.. */
	/* What it needs of a node (cores=, memory=, requires=). */
	int		 cores;
	int64_t		 memory_mb;
	char		*tags;		/* a comma list, or NULL */
	int		 verify;	/* verify="N": replicas, 0 none */
	int64_t		 est_ms;	/* estimate="2h": its run time */
};

struct workflow {
	const char	*file;
	char		 prio[16];	/* low or interactive */
	int64_t		 deadline_ms;	/* deadline="TIME": every task's, 0
					 * none (ms since the epoch) */
	int		 deadline_strict;	/* a task whose forecast
						 * misses it is refused */
	int		 ntasks;
	struct wf_task	*tasks;
	struct nameidx	 ids;		/* the tasks by id, once indexed */
};

/*
 * Check wf against the descriptions (a command has none: it takes any
 * inputs, and has the outputs it declares).  Every problem is a line
 * "file:line: message" in err; returns how many.  With none, order holds
 * the task indexes so that each comes after the tasks it reads from.
 */
int	workflow_check(const struct workflow *, const struct taskdesc_set *,
	    int *order, char *err, size_t errlen);
/* The first task of wf with this id, or -1. */
int	workflow_find(const struct workflow *, const char *id);
/* Index the tasks by id (wf_parse does, once they are all there): a
 * find is then a hash probe, not a walk -- a 4 096-task file is checked
 * and scheduled with one find per input.  The tasks must not change
 * after; without the index (out of memory) a find walks. */
void	workflow_index(struct workflow *);
/* Room for t's TASK_INPUTS_MAX inputs; -1 out of memory. */
int	workflow_inputs(struct wf_task *);
void	workflow_free(struct workflow *);

#endif
