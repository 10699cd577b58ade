/*
 * fuzz_criuimg.c -- libFuzzer: a CRIU pack from a peer (criuimg.h).
 * Nothing crashes; every file it names is a plain name inside the
 * pack's bounds, and a pack that parses has no byte after its files.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "criuimg.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct bounds {
	const uint8_t	*lo, *hi;
	size_t		 total;
};

static int
put(const char *name, const unsigned char *data, size_t size, void *arg)
{
	struct bounds	*b = arg;

	if (name[0] == '\0' || name[0] == '.' || strchr(name, '/') != NULL ||
	    strlen(name) > CRIUIMG_NAME_MAX || data < b->lo ||
	    size > (size_t)(b->hi - data))
		abort();
	b->total += size;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct criuimg_meta	 m;
	struct bounds		 b = { data, data + size, 0 };
	char			 why[256];

	if (criuimg_parse(data, size, &m, put, &b, why, sizeof why) == 0 &&
	    (m.pid < 1 || b.total > size))
		abort();
	return 0;
}
