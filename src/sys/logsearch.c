/*
 * logsearch.c -- filter log lines "[YYYY-MM-DD HH:MM:SS]: <level> text".
 * The stamps sort as text, so time bounds are string comparisons.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcre2.h>

#include "logsearch.h"
#include "when.h"

/*
 * A costly expression ((\w+\s?)+$ backtracks exponentially) gives up
 * on a line after this much work, instead of holding the node: the line
 * counts as not matching, and the search says how many it gave up on.
 */
#define MATCH_LIMIT	200000
#define UUID_MAXLEN_LOG 64	/* a task uuid, or any -t text */
#define DEPTH_LIMIT	20000

struct log_search {
	struct log_query	 q;
	pcre2_code		*re;
	pcre2_match_data	*md;
	pcre2_match_context	*mc;
	size_t			 gave_up;
	char			 uuid[UUID_MAXLEN_LOG + 1];	/* q.uuid's copy:
					 * the search may outlive q (logjob.c) */
};

struct log_search *
log_search_new(const struct log_query *q, char *err, size_t errlen)
{
	struct log_search	*s;
	PCRE2_UCHAR		 msg[256];
	PCRE2_SIZE		 offset;
	int			 code;

	if ((s = calloc(1, sizeof *s)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->q = *q;
	s->q.regex = NULL;	/* compiled below; the text may go */
	if (q->uuid != NULL) {
		snprintf(s->uuid, sizeof s->uuid, "%s", q->uuid);
		s->q.uuid = s->uuid;
	}
	if (q->regex == NULL)
		return s;
	s->re = pcre2_compile((PCRE2_SPTR)q->regex, PCRE2_ZERO_TERMINATED, 0,
	    &code, &offset, NULL);
	if (s->re == NULL) {
		pcre2_get_error_message(code, msg, sizeof msg);
		snprintf(err, errlen, "bad regular expression at offset %zu: "
		    "%s", (size_t)offset, (const char *)msg);
		free(s);
		return NULL;
	}
	if ((s->md = pcre2_match_data_create_from_pattern(s->re, NULL)) ==
	    NULL || (s->mc = pcre2_match_context_create(NULL)) == NULL) {
		log_search_free(s);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pcre2_set_match_limit(s->mc, MATCH_LIMIT);
	pcre2_set_depth_limit(s->mc, DEPTH_LIMIT);
	return s;
}

void
log_search_free(struct log_search *s)
{
	if (s == NULL)
		return;
	pcre2_match_context_free(s->mc);
	pcre2_match_data_free(s->md);
	pcre2_code_free(s->re);
	free(s);
}

size_t
log_search_gave_up(const struct log_search *s)
{
	return s->gave_up;
}

/* The line's severity, or -1 if it has none. */
static int
line_level(const char *line, size_t len)
{
	const char	*lt, *gt;
	char		 name[16];
	enum log_level	 level;

	if (len < LOG_STAMP_LEN + 6 || line[0] != '[')
		return -1;
	lt = line + LOG_STAMP_LEN + 4;	/* after "[stamp]: " */
	if (lt >= line + len || *lt != '<' ||
	    (gt = memchr(lt, '>', line + len - lt)) == NULL ||
	    (size_t)(gt - lt - 1) >= sizeof name)
		return -1;
	memcpy(name, lt + 1, gt - lt - 1);
	name[gt - lt - 1] = '\0';
	return log_level_parse(name, &level) == 0 ? (int)level : -1;
}

int
log_search_match(struct log_search *s, const char *line, size_t len)
{
	int	level, rc;

	if (s->q.since[0] != '\0' || s->q.until[0] != '\0') {
		if (len < LOG_STAMP_LEN + 1 || line[0] != '[')
			return 0;
		if (s->q.since[0] != '\0' &&
		    memcmp(line + 1, s->q.since, LOG_STAMP_LEN) < 0)
			return 0;
		if (s->q.until[0] != '\0' &&
		    memcmp(line + 1, s->q.until, LOG_STAMP_LEN) > 0)
			return 0;
	}
	if (s->q.has_level && ((level = line_level(line, len)) == -1 ||
	    level < (int)s->q.level))
		return 0;
	if (s->q.uuid != NULL && memmem(line, len, s->q.uuid,
	    strlen(s->q.uuid)) == NULL)
		return 0;
	if (s->re != NULL && (rc = pcre2_match(s->re, (PCRE2_SPTR)line, len,
	    0, 0, s->md, s->mc)) < 0) {
		if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
		    rc == PCRE2_ERROR_HEAPLIMIT)
			s->gave_up++;
		return 0;
	}
	return 1;
}

int
log_search_file(struct log_search *s, FILE *f, int nlines,
    int (*emit)(const char *, size_t, void *), void *arg)
{
	char	**ring = NULL, *line = NULL;
	size_t	 *lens = NULL, cap = 0;
	ssize_t	  len;
	long	  seen = 0, i;

	if (nlines > 0) {
		ring = calloc(nlines, sizeof *ring);
		lens = calloc(nlines, sizeof *lens);
		if (ring == NULL || lens == NULL) {
			free(ring);
			free(lens);
			return -1;
		}
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (!log_search_match(s, line, len))
			continue;
		if (nlines == 0) {
			if (emit(line, len, arg) == -1)
				break;
			continue;
		}
		/* Keep the last nlines: the oldest slot takes this one. */
		i = seen++ % nlines;
		free(ring[i]);
		ring[i] = line;
		lens[i] = len;
		line = NULL;
		cap = 0;
	}
	free(line);
	if (nlines > 0) {
		long first = seen > nlines ? seen - nlines : 0;
		for (i = first; i < seen; i++)
			if (emit(ring[i % nlines], lens[i % nlines], arg) ==
			    -1)
				break;
		for (i = 0; i < nlines; i++)
			free(ring[i]);
	}
	free(ring);
	free(lens);
	return ferror(f) ? -1 : 0;
}

int
log_time_parse(const char *text, time_t now, int end,
    char out[LOG_STAMP_LEN + 1])
{
	struct tm	tm;
	time_t		t;
	char		stamp[64];

	if (when_parse(text, now, end, &t) == -1 ||
	    localtime_r(&t, &tm) == NULL ||
	    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm) !=
	    LOG_STAMP_LEN)
		return -1;
	memcpy(out, stamp, LOG_STAMP_LEN + 1);
	return 0;
}
