/*
 * errlist.c -- collect "file:line: message" problems in a buffer; past
 * its end they are counted, not written.
 */
#include <stdarg.h>
#include <stdio.h>

#include "errlist.h"

void
errlist_init(struct errlist *e, const char *file, char *buf, size_t len)
{
	e->file = file;
	e->buf = buf;
	e->len = len;
	e->off = 0;
	e->count = 0;
	if (len > 0)
		buf[0] = '\0';
}

void
errlist_add(struct errlist *e, long line, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	e->count++;
	if (e->off + 1 >= e->len)
		return;
	n = snprintf(e->buf + e->off, e->len - e->off, "%s%s:%ld: ",
	    e->off > 0 ? "\n" : "", e->file, line);
	if (n > 0)
		e->off += n;
	if (e->off + 1 < e->len) {
		va_start(ap, fmt);
		n = vsnprintf(e->buf + e->off, e->len - e->off, fmt, ap);
		va_end(ap);
		if (n > 0)
			e->off += n;
	}
	if (e->off >= e->len)
		e->off = e->len - 1;
}
