/*
 * userlimit.c -- users' own limits as a config gives them (userlimit.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bounds.h"
#include "lex.h"
#include "runas.h"
#include "userlimit.h"

int
userlimit_parse(const char *value, char *out, size_t size)
{
	char		 copy[CAPS_TEXT_MAX + 1], *p, *w, *colon;
	size_t		 off = 0;
	int64_t		 n;
	int		 len;

	if (snprintf(copy, sizeof copy, "%s", value) >= (int)sizeof copy)
		return -1;
	out[0] = '\0';
	for (p = copy; (w = strsep(&p, " \t\r\n,")) != NULL;) {
		if (*w == '\0')
			continue;
		if ((colon = strchr(w, ':')) == NULL)
			return -1;
		*colon = '\0';
		if (!runas_name_valid(w) || lex_int(colon + 1, 0, 1000000,
		    &n) == -1)
			return -1;
		len = snprintf(out + off, size - off, "%s%s:%lld", off > 0 ?
		    "," : "", w, (long long)n);
		if (len < 0 || (size_t)len >= size - off)
			return -1;
		off += len;
	}
	return 0;
}
