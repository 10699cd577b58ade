/*
 * cmdend.h -- how a command task's run ended (volery run): exit status
 * 0 and every declared output found is TERMINATED with them; anything
 * else an ERROR saying what went wrong, final if its time limit was
 * reached.  Pure: the shell says what it saw, and looks at a file
 * output's file when asked (file_there).
 */
#ifndef VOLERY_CMDEND_H
#define VOLERY_CMDEND_H

#include <stdint.h>

struct runner_msg;

struct cmdend_output {
	const char	*spec;		/* what follows "file:" or "line:" */
	int		 is_line;	/* a pattern looked for on stdout */
	const char	*found;		/* a line output's match, or NULL */
	const char	*path;		/* a file output's absolute path */
};

struct cmdend_facts {
	int				 timed_out;
	int64_t				 limit_ms;	/* its time limit */
	int				 code;		/* exit status */
	int				 signo;		/* or the signal */
	const char			*signame;	/* strsignal(signo) */
	int				 nouts;
	const struct cmdend_output	*outs;
	/* Is path there, as the run user sees it?  Asked only for file
	 * outputs that matter, in order. */
	int				(*file_there)(const char *path,
					    void *arg);
	void				*arg;
};

/* The run's result into m (its outputs point into f's strings). */
void	cmdend_decide(const struct cmdend_facts *f, struct runner_msg *m);

#endif
