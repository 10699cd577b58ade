/*
 * lex.c -- the one tokenizer and the bounded number parsers (lex.h).
 * Each number parser checks the characters itself before strto*() sees
 * them, so the libc's leniencies (a sign, leading blanks, hex floats,
 * "inf") never reach a codec.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"

char *
lex_word(char **p, const char *seps)
{
	char	*w = *p;
	size_t	 n;

	if (w == NULL || *w == '\0')
		return NULL;
	n = strcspn(w, seps);
	if (w[n] != '\0') {
		w[n] = '\0';
		*p = w + n + 1;
	} else
		*p = w + n;
	return w;
}

char *
lex_word_nonempty(char **p, const char *seps)
{
	if (*p != NULL)
		*p += strspn(*p, seps);
	return lex_word(p, seps);
}

char *
lex_rest(char **p, const char *seps)
{
	char	*r = *p + strspn(*p, seps);

	*p = r + strlen(r);
	return r;
}

static int
all_digits(const char *s, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return n > 0;
}

int
lex_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
	const char	*d = s[0] == '-' ? s + 1 : s;
	long long	 v;

	if (!all_digits(d, strlen(d)) || strlen(d) > 19)
		return -1;
	errno = 0;
	v = strtoll(s, NULL, 10);
	if (errno != 0 || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int
lex_hex64(const char *s, uint64_t *out)
{
	size_t	n = strlen(s);

	if (n == 0 || n > 16 || strspn(s, "0123456789abcdefABCDEF") != n)
		return -1;
	*out = strtoull(s, NULL, 16);
	return 0;
}

int
lex_decimal(const char *s, double min, double max, double *out)
{
	size_t	n = strcspn(s, ".");
	double	v;

	if (!all_digits(s, n) || n > 15 ||
	    (s[n] == '.' && !all_digits(s + n + 1, strlen(s + n + 1))))
		return -1;
	v = strtod(s, NULL);
	if (!(v >= min && v <= max))
		return -1;
	*out = v;
	return 0;
}

int
lex_printable(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			return 0;
	return 1;
}
