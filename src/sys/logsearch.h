/*
 * logsearch.h -- search a node's log (DESIGN.md section 7): by PCRE2
 * regular expression, least severity, task uuid and time range.  Used by
 * the node for LOG and by `volery log` on a local file.
 */
#ifndef VOLERY_LOGSEARCH_H
#define VOLERY_LOGSEARCH_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "outbox.h"

#define LOG_STAMP_LEN 19	/* YYYY-MM-DD HH:MM:SS */

struct log_query {
	const char	*regex;		/* NULL: any line */
	int		 has_level;
	enum log_level	 level;		/* this severity or worse */
	const char	*uuid;		/* NULL: any task */
	char		 since[LOG_STAMP_LEN + 1];	/* "": no bound */
	char		 until[LOG_STAMP_LEN + 1];	/* "": no bound */
};

struct log_search;

/* Compile q; NULL with err ("offset 3: missing closing parenthesis"). */
struct log_search *log_search_new(const struct log_query *q, char *err,
	    size_t errlen);
void	log_search_free(struct log_search *);
int	log_search_match(struct log_search *, const char *line, size_t len);
/* The last nlines (0: all) matching lines of f, in order, to emit
 * (which returns -1 to stop). */
int	log_search_file(struct log_search *, FILE *f, int nlines,
	    int (*emit)(const char *line, size_t len, void *arg), void *arg);
/* Lines the expression gave up on (its PCRE2 match or depth limit). */
size_t	log_search_gave_up(const struct log_search *);
/* A time as people write it (when.h), to a log stamp; -1 if the text
 * is none of its forms. */
int	log_time_parse(const char *text, time_t now, int end,
	    char out[LOG_STAMP_LEN + 1]);

#endif
