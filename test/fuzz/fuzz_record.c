/*
 * fuzz_record.c -- libFuzzer: any bytes as a journal line.  A record
 * that decodes must encode again to something that decodes to the same
 * encoding (the journal never drifts on reload).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char	a[RECORD_LINE_MAX], b[RECORD_LINE_MAX];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*payload;
	size_t		 plen;
	struct task	*t, *u;
	char		 err[128];
	int		 la, lb;

	/* Framed: checksum first; also try the payload bare. */
	if (wire_record_unframe((const char *)data, size, &payload,
	    &plen) == -1) {
		payload = (const char *)data;
		plen = size;
	}
	if ((t = wire_task_decode(payload, plen, err, sizeof err)) == NULL)
		return 0;
	if ((la = wire_task_encode(t, a, sizeof a)) < 0)
		abort();
	if ((u = wire_task_decode(a, la, err, sizeof err)) == NULL)
		abort();
	if ((lb = wire_task_encode(u, b, sizeof b)) != la ||
	    memcmp(a, b, la) != 0)
		abort();
	task_free(t);
	task_free(u);
	return 0;
}
