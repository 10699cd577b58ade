/*
 * memsize.c -- amounts of memory (memsize.h).
 */
#include <stdio.h>
#include <string.h>

#include "bounds.h"
#include "lex.h"
#include "memsize.h"

int
memsize_parse(const char *s, int64_t *mb)
{
	char	num[32];
	size_t	len = strlen(s);
	int64_t	v, unit = 1;

	if (len == 0 || len >= sizeof num)
		return -1;
	memcpy(num, s, len + 1);
	switch (num[len - 1]) {
	case 'T': case 't': unit = 1024 * 1024; break;
	case 'G': case 'g': unit = 1024; break;
	case 'M': case 'm': unit = 1; break;
	default: unit = 0; break;
	}
	if (unit != 0)
		num[len - 1] = '\0';
	else
		unit = 1;
	if (lex_int(num, 1, MEMORY_MB_MAX, &v) == -1 ||
	    v > MEMORY_MB_MAX / unit)
		return -1;
	*mb = v * unit;
	return 0;
}
