/*
 * fuzz_log.c -- libFuzzer: the first line is a time for --since and a
 * regular expression, the rest log lines to search.  Nothing crashes;
 * a bad regex is an error, never a crash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logsearch.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct log_query	 q;
	struct log_search	*s;
	char			*text, *nl, *line, *next, err[300];

	if (size > 65536 || (text = malloc(size + 1)) == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&q, 0, sizeof q);
	if ((nl = strchr(text, '\n')) != NULL)
		*nl = '\0';
	log_time_parse(text, 1800000000, 0, q.since);
	log_time_parse(text, 1800000000, 1, q.until);
	if (strlen(q.since) != 0 && strlen(q.since) != LOG_STAMP_LEN)
		abort();
	q.regex = text;
	q.has_level = 1;
	q.level = VLOG_INFO;
	if ((s = log_search_new(&q, err, sizeof err)) != NULL && nl != NULL) {
		for (line = nl + 1; line != NULL; line = next) {
			if ((next = strchr(line, '\n')) != NULL)
				*next++ = '\0';
			log_search_match(s, line, strlen(line));
		}
	}
	log_search_free(s);
	free(text);
	return 0;
}
