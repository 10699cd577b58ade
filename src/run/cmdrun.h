/*
 * cmdrun.h -- what a command task (volery run, <command>) means on the
 * node that runs it: its directory and program found as the run user,
 * placeholders in its words and file names filled in.
 *
 * Placeholders: {uuid} is the task's uuid, {inN} the dataset of its
 * input N (1-based; the file name or matched text its upstream task
 * gave); an argument that is exactly {in*} is every input, one argument
 * each (runner.c).  Anything else in braces is left as it is.
 */
#ifndef VOLERY_CMDRUN_H
#define VOLERY_CMDRUN_H

#include <stddef.h>

struct runas;
struct task;
struct task_cmd;

/* s with t's placeholders filled in: a new string, NULL out of memory. */
char	*cmdrun_expand(const struct task *t, const char *s);
/* file (expanded) as an absolute path, relative to t's directory. */
int	 cmdrun_path(const struct task *t, const char *file, char *buf,
	    size_t size);
/*
 * Where t's program is, into prog: argv[0] if it holds a '/' (relative
 * to t's directory), else the first match in the PATH t's environment
 * or the node's gives.  0, or -1 with why: no such program, or the run
 * user cannot reach it or t's directory.
 */
int	 cmdrun_find(const struct task *t, const struct runas *ra, char *prog,
	    size_t size, char *why, size_t whylen);
/* The first program name in search (a PATH; NULL: the node's) that ra
 * may execute, into prog; absolute entries only.  0, or -1 with why. */
int	 cmdrun_which(const char *search, const char *name,
	    const struct runas *ra, char *prog, size_t size, char *why,
	    size_t whylen);

/* Whether every line output of c is a regular expression PCRE2 takes:
 * 0, or -1 with the first that is not, and why, in err. */
int	 cmdrun_check_patterns(const struct task_cmd *c, char *err,
	    size_t errlen);

#endif
