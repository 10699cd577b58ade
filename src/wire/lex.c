/*
 * lex.c -- the one tokenizer and the bounded number parsers (lex.h).
 * Each number parser checks the characters itself before strto*() sees
 * them, so the libc's leniencies (a sign, leading blanks, hex floats,
 * "inf") never reach a codec.
 */
#include <ctype.h>
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

int
lex_must_escape(unsigned char c)
{
	return c <= ' ' || c >= 0x7f || c == '%' || c == ',' || c == ':' ||
	    c == '=';
}

int
lex_escape(const char *s, char *dst, size_t size)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t		  off = 0;

	for (; *s != '\0'; s++) {
		unsigned char c = *s;
		if (off + 4 > size)
			return -1;
		if (lex_must_escape(c)) {
			dst[off++] = '%';
			dst[off++] = hex[c >> 4];
			dst[off++] = hex[c & 15];
		} else
			dst[off++] = (char)c;
	}
	if (off >= size)
		return -1;
	dst[off] = '\0';
	return (int)off;
}

int
lex_unescape(char *s)
{
	char	*w = s;

	for (; *s != '\0'; s++) {
		if (*s == '%') {
			int hi, lo;
			if (!isxdigit((unsigned char)s[1]) ||
			    !isxdigit((unsigned char)s[2]))
				return -1;
			hi = isdigit((unsigned char)s[1]) ? s[1] - '0' :
			    (tolower((unsigned char)s[1]) - 'a' + 10);
			lo = isdigit((unsigned char)s[2]) ? s[2] - '0' :
			    (tolower((unsigned char)s[2]) - 'a' + 10);
			if (hi == 0 && lo == 0)
				return -1;
			*w++ = (char)(hi << 4 | lo);
			s += 2;
		} else
			*w++ = *s;
	}
	*w = '\0';
	return 0;
}

int
lex_hostport(const char *s, char *host, size_t hostlen, int *port)
{
	const char	*end, *colon;
	size_t		 len;
	int64_t		 v;

	*port = -1;
	if (*s == '[') {
		if ((end = strchr(s, ']')) == NULL)
			return -1;
		len = end - s - 1;
		colon = end[1] == ':' ? end + 1 : NULL;
		if (end[1] != '\0' && colon == NULL)
			return -1;
		s++;
	} else if ((colon = strchr(s, ':')) != NULL &&
	    strchr(colon + 1, ':') != NULL) {
		colon = NULL;		/* a bare v6 address, no port */
		len = strlen(s);
	} else
		len = colon != NULL ? (size_t)(colon - s) : strlen(s);
	if (len == 0 || len >= hostlen)
		return -1;
	memcpy(host, s, len);
	host[len] = '\0';
	if (colon != NULL) {
		if (lex_int(colon + 1, 0, 65535, &v) == -1)
			return -1;
		*port = (int)v;
	}
	return 0;
}
