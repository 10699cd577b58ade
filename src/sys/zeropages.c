/*
 * zeropages.c -- zeroing that leaves zero pages alone (zeropages.h).
 */
#include <stdint.h>
#include <string.h>

#include "zeropages.h"

#define PAGE	4096

/* Whether p[0..len) is all zero: reading a page never written maps the
 * zero page, which is nobody's memory. */
static int
all_zero(const unsigned char *p, size_t len)
{
	return len == 0 || (p[0] == 0 && memcmp(p, p + 1, len - 1) == 0);
}

void
zero_pages(void *p, size_t len)
{
	unsigned char	*c = p, *end = c + len, *next;

	while (c < end) {
		/* To the next page boundary, or the end. */
		next = (unsigned char *)(((uintptr_t)c + PAGE) &
		    ~(uintptr_t)(PAGE - 1));
		if (next > end)
			next = end;
		if (!all_zero(c, (size_t)(next - c)))
			memset(c, 0, (size_t)(next - c));
		c = next;
	}
}
