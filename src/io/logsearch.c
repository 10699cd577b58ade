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

/* Exactly n digits at s into *v. */
static int
digits(const char *s, int n, int *v)
{
	int	i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		*v = *v * 10 + (s[i] - '0');
	}
	return 0;
}

/* "HH:MM" or "HH:MM:SS" at s, all of s. */
static int
clock_time(const char *s, int end, int *h, int *m, int *sec)
{
	size_t	len = strlen(s);

	if ((len != 5 && len != 8) || s[2] != ':' ||
	    digits(s, 2, h) == -1 || digits(s + 3, 2, m) == -1 ||
	    *h > 23 || *m > 59)
		return -1;
	*sec = end ? 59 : 0;
	if (len == 8 && (s[5] != ':' || digits(s + 6, 2, sec) == -1 ||
	    *sec > 60))
		return -1;
	return 0;
}

int
log_time_parse(const char *text, time_t now, int end,
    char out[LOG_STAMP_LEN + 1])
{
	struct tm	tm;
	char		*unit;
	long		 n;
	int		 y, mo, d, h = end ? 23 : 0, mi = end ? 59 : 0;
	int		 sec = end ? 59 : 0;
	char		 stamp[64];
	time_t		 t;

	localtime_r(&now, &tm);
	if (isdigit((unsigned char)text[0]) && (n = strtol(text, &unit,
	    10)) >= 0 && unit[0] != '\0' && unit[1] == '\0' &&
	    strchr("smhd", unit[0]) != NULL) {
		/* Relative: that long ago (at most a century). */
		long scale = unit[0] == 's' ? 1 : unit[0] == 'm' ? 60 :
		    unit[0] == 'h' ? 3600 : 86400;
		if (n > 100L * 366 * 86400 / scale)
			return -1;
		t = now - n * scale;
		if (localtime_r(&t, &tm) == NULL ||
		    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm) !=
		    LOG_STAMP_LEN)
			return -1;
		memcpy(out, stamp, LOG_STAMP_LEN + 1);
		return 0;
	}
	if (strlen(text) >= 10 && text[4] == '-' && text[7] == '-' &&
	    digits(text, 4, &y) == 0 && digits(text + 5, 2, &mo) == 0 &&
	    digits(text + 8, 2, &d) == 0 && mo >= 1 && mo <= 12 &&
	    d >= 1 && d <= 31) {
		if (text[10] != '\0' && ((text[10] != ' ' &&
		    text[10] != 'T') || clock_time(text + 11, end, &h, &mi,
		    &sec) == -1))
			return -1;
	} else if (clock_time(text, end, &h, &mi, &sec) == 0) {
		y = tm.tm_year + 1900;
		mo = tm.tm_mon + 1;
		d = tm.tm_mday;
	} else
		return -1;
	snprintf(stamp, sizeof stamp, "%04d-%02d-%02d %02d:%02d:%02d",
	    y % 10000, mo, d, h, mi, sec);
	memcpy(out, stamp, LOG_STAMP_LEN + 1);
	return 0;
}
