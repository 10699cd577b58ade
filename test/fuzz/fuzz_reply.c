/*
 * fuzz_reply.c -- libFuzzer: any bytes as a reply line the command line
 * reads from a node (reply.h).  A line either fails to parse or parses
 * to fields that format to a line which parses to the same fields and
 * formats to the same bytes; nothing crashes.  An answer to a request for
 * bytes (CKPT, FILE) parses only as it is formatted.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reply.h"
#include "task.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define LINE_MAX_BYTES	(RECORD_LINE_MAX + 64)

/* format(parse(line)) is a fixed point. */
#define ROUND_TRIP(type, parse, format) do {				\
	type	a, b;							\
	char	x[LINE_MAX_BYTES], y[LINE_MAX_BYTES];			\
	if (parse(line, &a) == 0) {					\
		if (format(&a, x, sizeof x) < 0)			\
			break;	/* too long for one line: refused */	\
		if (parse(x, &b) != 0 || format(&b, y, sizeof y) < 0 ||	\
		    strcmp(x, y) != 0)					\
			abort();					\
	}								\
} while (0)

/* The answer to a request for bytes, the request its first three words
 * ("FILE <uuid> <n>"): what parses is the one way to format it. */
static void
blob(const char *line)
{
	char		 req[LINE_MAX_BYTES], x[LINE_MAX_BYTES];
	const char	*p = line;
	int64_t		 bytes, zbytes;
	int		 words;

	for (words = 0; words < 3 && (p = strchr(p, ' ')) != NULL; words++)
		p++;
	if (p == NULL || p == line)
		return;
	memcpy(req, line, p - line - 1);
	req[p - line - 1] = '\0';
	if (wire_reply_blob_parse(line, req, &bytes, &zbytes) == 0 &&
	    (wire_reply_blob_format(req, bytes, zbytes, x, sizeof x) < 0 ||
	    strncmp(x, line, strlen(x) - 1) != 0 ||
	    line[strlen(x) - 1] != '\0' && line[strlen(x) - 1] != '\n'))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char		 line[LINE_MAX_BYTES], addr[ADDR_MAXLEN + 1];
	char		 x[LINE_MAX_BYTES], err[128], why[REASON_MAXLEN + 1];
	int64_t		 until;
	struct task	*t;

	if (size >= sizeof line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	ROUND_TRIP(struct reply_task, wire_reply_task_parse,
	    wire_reply_task_format);
	ROUND_TRIP(struct reply_node, wire_reply_node_parse,
	    wire_reply_node_format);
	ROUND_TRIP(struct reply_rejected, wire_reply_rejected_parse,
	    wire_reply_rejected_format);
	if (wire_reply_clash_parse(line, addr, sizeof addr) == 0 &&
	    (wire_reply_clash_format(addr, x, sizeof x) < 0 ||
	    strncmp(x, line, strlen(x) - 1) != 0))
		abort();
	if (wire_reply_quarantined_parse(line, &until, why, sizeof why) == 0 &&
	    (wire_reply_quarantined_format(until, why, x, sizeof x) < 0 ||
	    strncmp(x, line, strlen(x) - 1) != 0))
		abort();
	if ((t = wire_reply_record_parse(line, err, sizeof err)) != NULL) {
		if (wire_reply_record_format(t, size % 2, x, sizeof x) < 0)
			abort();
		task_free(t);
	}
	blob(line);
	return 0;
}
