/*
 * when.c -- times as people write them (when.h), as journalctl's and
 * sacct's --since and --starttime take them.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "when.h"

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

/* Seconds in a unit: "s", "m", "h", "d", "w" or its word ("minutes"). */
static long
unit_seconds(const char *u, size_t len)
{
	static const struct {
		const char	*word;
		long		 seconds;
	} units[] = {
		{ "s", 1 }, { "sec", 1 }, { "second", 1 },
		{ "m", 60 }, { "min", 60 }, { "minute", 60 },
		{ "h", 3600 }, { "hour", 3600 },
		{ "d", 86400 }, { "day", 86400 },
		{ "w", 604800 }, { "week", 604800 },
	};
	size_t	i, k;

	for (i = 0; i < sizeof units / sizeof units[0]; i++) {
		k = strlen(units[i].word);
		if (strncasecmp(u, units[i].word, k) == 0 && (len == k ||
		    (len == k + 1 && k > 1 && tolower((unsigned char)u[k]) ==
		    's')))
			return units[i].seconds;
	}
	return 0;
}

/* "2h", "2h ago", "2 hours ago": now less that; -1 if not one. */
static int
while_ago(const char *text, time_t now, time_t *out)
{
	const char	*p = text, *u;
	long		 n, scale;
	size_t		 len;
	char		*end;

	if (!isdigit((unsigned char)*p))
		return -1;
	n = strtol(p, &end, 10);
	for (u = end; *u == ' '; u++)
		;
	for (len = 0; u[len] != '\0' && u[len] != ' '; len++)
		;
	if (len == 0 || (scale = unit_seconds(u, len)) == 0)
		return -1;
	for (p = u + len; *p == ' '; p++)
		;
	if (*p != '\0' && strcasecmp(p, "ago") != 0)
		return -1;
	if (n < 0 || n > 100L * 366 * 86400 / scale)	/* a century */
		return -1;
	*out = now - (time_t)n * scale;
	return 0;
}

int
when_parse(const char *text, time_t now, int end, time_t *out)
{
	struct tm	tm;
	int		y, mo, d, h = end ? 23 : 0, mi = end ? 59 : 0;
	int		sec = end ? 59 : 0, back = 0;

	if (strcasecmp(text, "now") == 0) {
		*out = now;
		return 0;
	}
	if (while_ago(text, now, out) == 0)
		return 0;
	if (localtime_r(&now, &tm) == NULL)
		return -1;
	if (strlen(text) >= 10 && text[4] == '-' && text[7] == '-' &&
	    digits(text, 4, &y) == 0 && digits(text + 5, 2, &mo) == 0 &&
	    digits(text + 8, 2, &d) == 0 && mo >= 1 && mo <= 12 &&
	    d >= 1 && d <= 31) {
		if (text[10] != '\0' && ((text[10] != ' ' &&
		    text[10] != 'T') || clock_time(text + 11, end, &h, &mi,
		    &sec) == -1))
			return -1;
	} else if (strcasecmp(text, "today") == 0 ||
	    (back = strcasecmp(text, "yesterday") == 0) ||
	    clock_time(text, end, &h, &mi, &sec) == 0) {
		y = tm.tm_year + 1900;
		mo = tm.tm_mon + 1;
		d = tm.tm_mday - back;	/* mktime carries a day 0 back */
	} else
		return -1;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	tm.tm_isdst = -1;
	if ((*out = mktime(&tm)) == (time_t)-1)
		return -1;
	return 0;
}

int
when_parse_begin(const char *text, time_t now, time_t *out)
{
	const char	*p = text;
	char		*end;
	long long	 n;
	int		 unit;

	if (strncasecmp(p, "now", 3) == 0 && p[3] == '+')
		p += 3;
	if (*p == '+') {
		n = strtoll(p + 1, &end, 10);
		if (end == p + 1 || n < 0 || n > 100LL * 365 * 86400)
			return -1;
		unit = *end == '\0' || strcmp(end, "s") == 0 ? 1 :
		    strcmp(end, "m") == 0 ? 60 : strcmp(end, "h") == 0 ?
		    3600 : strcmp(end, "d") == 0 ? 86400 : 0;
		if (unit == 0)
			return -1;
		*out = now + (time_t)(n * unit);
		return 0;
	}
	/* Only instants: "2h" alone would be a while ago. */
	if (strchr(text, ':') == NULL && strchr(text, '-') == NULL)
		return -1;
	if (when_parse(text, now, 0, out) == -1)
		return -1;
	/* A time of day already past today: the next one. */
	if (*out < now && strchr(text, '-') == NULL)
		*out += 86400;
	return 0;
}
