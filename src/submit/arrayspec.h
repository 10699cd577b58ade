/*
 * arrayspec.h -- an array's values as Slurm's --array writes them:
 * "1-100", "0-30:3" (a step), "1,4,9", any mix, and "%N" at the end for
 * at most N running at once.
 */
#ifndef VOLERY_ARRAYSPEC_H
#define VOLERY_ARRAYSPEC_H

#include <stddef.h>

#define ARRAYSPEC_MAX 10000	/* values of one array */

struct arrayspec {
	int	*v;		/* the values, in the order written */
	int	 n;
	int	 max_running;	/* 0: no limit */
};

/* 0, or -1 with err; free with arrayspec_free(). */
int	arrayspec_parse(const char *, struct arrayspec *, char *err,
	    size_t errlen);
void	arrayspec_free(struct arrayspec *);
/* s with each "{i}" replaced by value: a new string, NULL out of
 * memory. */
char	*arrayspec_fill(const char *s, int value);

#endif
