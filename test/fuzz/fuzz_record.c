/*
 * fuzz_record.c -- libFuzzer: any bytes as a journal line.  A record
 * that decodes must encode again to something that decodes to the same
 * encoding (the journal never drifts on reload).  The same bytes as a
 * whole journal: every line is either loaded or reported damaged.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char	a[RECORD_LINE_MAX], b[RECORD_LINE_MAX];

static int
take(struct task *t, void *arg)
{
	return -1;	/* freed by the scan */
}

static void
damaged(size_t lineno, enum wire_damage kind, const char *why, size_t len,
    void *arg)
{
	if (why == NULL || (kind == DAMAGE_TORN && len == 0))
		abort();
}

static void
scan_as_journal(const uint8_t *data, size_t size)
{
	struct wire_journal_scan scan = { take, damaged, NULL, 0, 0 };
	size_t	lines = 0, i;

	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (size > 0 && data[size - 1] != '\n')
		lines++;
	wire_journal_scan((const char *)data, size, &scan);
	if (scan.loaded + scan.damages != lines)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*payload;
	size_t		 plen;
	struct task	*t, *u;
	char		 err[128];
	int		 la, lb;

	scan_as_journal(data, size);
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
