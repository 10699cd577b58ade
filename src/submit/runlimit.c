/*
 * runlimit.c -- time limits as Slurm and people write them (runlimit.h).
 */
#include <stdio.h>
#include <string.h>

#include "bounds.h"
#include "lex.h"
#include "runlimit.h"

/* Up to three ':'-separated numbers into v, the last one in v[n-1]. */
static int
fields(char *s, int64_t *v, int *n)
{
	char	*part;

	*n = 0;
	while ((part = strsep(&s, ":")) != NULL) {
		if (*n == 3 || lex_int(part, 0, 1000000000, &v[*n]) == -1)
			return -1;
		(*n)++;
	}
	return 0;
}

int
runlimit_parse(const char *text, int64_t *secs, char *err, size_t errlen)
{
	char	 buf[64], *s = buf, *dash;
	int64_t	 v[3], days = 0, unit, t;
	size_t	 len = strlen(text);
	int	 n;

	if (len == 0 || len >= sizeof buf)
		goto bad;
	memcpy(buf, text, len + 1);
	unit = strchr("smhd", buf[len - 1]) == NULL ? 0 :
	    buf[len - 1] == 's' ? 1 : buf[len - 1] == 'm' ? 60 :
	    buf[len - 1] == 'h' ? 3600 : 86400;
	if (unit != 0) {
		buf[len - 1] = '\0';
		if (lex_int(buf, 1, 1000000000, &t) == -1)
			goto bad;
		t *= unit;
	} else {
		if ((dash = strchr(buf, '-')) != NULL) {
			*dash = '\0';
			if (lex_int(buf, 0, 1000, &days) == -1)
				goto bad;
			s = dash + 1;
		}
		if (fields(s, v, &n) == -1)
			goto bad;
		if (dash != NULL)	/* D-H, D-H:M, D-H:M:S */
			t = v[0] * 3600 + (n > 1 ? v[1] * 60 : 0) +
			    (n > 2 ? v[2] : 0);
		else if (n == 1)	/* minutes */
			t = v[0] * 60;
		else if (n == 2)	/* M:S */
			t = v[0] * 60 + v[1];
		else			/* H:M:S */
			t = v[0] * 3600 + v[1] * 60 + v[2];
		t += days * 86400;
	}
	if (t < 1 || t > CMD_TIME_LIMIT_MAX / 1000) {
		snprintf(err, errlen, "from 1 s to a year");
		return -1;
	}
	*secs = t;
	return 0;
bad:
	snprintf(err, errlen, "a duration: minutes, MM:SS, HH:MM:SS, "
	    "D-HH:MM:SS, or 90s, 10m, 2h, 1d");
	return -1;
}
