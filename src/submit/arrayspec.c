/*
 * arrayspec.c -- array values as Slurm writes them (arrayspec.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrayspec.h"
#include "bounds.h"
#include "lex.h"

static int
add(struct arrayspec *a, int64_t value)
{
	if (a->n == ARRAYSPEC_MAX)
		return -1;
	a->v[a->n++] = (int)value;
	return 0;
}

/* "A", "A-B" or "A-B:S" into a. */
static int
item(struct arrayspec *a, char *s)
{
	char	*dash = strchr(s, '-'), *colon = strchr(s, ':');
	int64_t	 from, to, step = 1, k;

	if (colon != NULL && dash == NULL)
		return -1;
	if (colon != NULL) {
		*colon = '\0';
		if (lex_int(colon + 1, 1, ARRAY_INDEX_MAX, &step) == -1)
			return -1;
	}
	if (dash != NULL)
		*dash = '\0';
	if (lex_int(s, 0, ARRAY_INDEX_MAX, &from) == -1)
		return -1;
	to = from;
	if (dash != NULL && (lex_int(dash + 1, 0, ARRAY_INDEX_MAX, &to) == -1 ||
	    to < from))
		return -1;
	for (k = from; k <= to; k += step)
		if (add(a, k) == -1)
			return -1;
	return 0;
}

int
arrayspec_parse(const char *text, struct arrayspec *a, char *err,
    size_t errlen)
{
	char	*copy, *s, *part, *pct;
	int64_t	 max;

	memset(a, 0, sizeof *a);
	if ((copy = strdup(text)) == NULL ||
	    (a->v = calloc(ARRAYSPEC_MAX, sizeof *a->v)) == NULL) {
		free(copy);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if ((pct = strchr(copy, '%')) != NULL) {
		*pct = '\0';
		if (lex_int(pct + 1, 1, ARRAY_MAX_MAX, &max) == -1)
			goto bad;
		a->max_running = (int)max;
	}
	for (s = copy; (part = strsep(&s, ",")) != NULL;)
		if (item(a, part) == -1)
			goto bad;
	free(copy);
	return 0;
bad:
	free(copy);
	arrayspec_free(a);
	snprintf(err, errlen, "an array is values from 0 to %d: N, N-M, "
	    "N-M:STEP, separated by ',', at most %d of them, then %%LIMIT "
	    "if only LIMIT may run at once", ARRAY_INDEX_MAX, ARRAYSPEC_MAX);
	return -1;
}

void
arrayspec_free(struct arrayspec *a)
{
	free(a->v);
	memset(a, 0, sizeof *a);
}

char *
arrayspec_fill(const char *s, int value)
{
	char		 num[16], *out, *w;
	const char	*p;
	size_t		 n = 1, len;

	len = snprintf(num, sizeof num, "%d", value);
	for (p = s; *p != '\0'; p++)
		n += strncmp(p, "{i}", 3) == 0 ? (p += 2, len) : 1;
	if ((out = malloc(n)) == NULL)
		return NULL;
	for (p = s, w = out; *p != '\0'; p++) {
		if (strncmp(p, "{i}", 3) == 0) {
			memcpy(w, num, len);
			w += len;
			p += 2;
		} else
			*w++ = *p;
	}
	*w = '\0';
	return out;
}
