/*
 * fuzz_probe.c -- libFuzzer: any bytes as /proc/stat, /proc/PID/stat,
 * loginctl output or an idle_command's answer.  The parsers read only
 * the bytes given (no NUL needed) and keep their results in range.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char		*text;
	struct cpu_sample	 c, zero = { 0, 0 };
	struct pid_sample	 p;
	struct logind_info	 li;
	int64_t			 locked = -1, secs;
	char			*copy;
	int			 pct;

	/* An exact-size copy: ASan catches any read past the end. */
	if ((copy = malloc(size > 0 ? size : 1)) == NULL)
		return 0;
	memcpy(copy, data, size);
	text = copy;
	if (probe_parse_cpu(text, size, &c) == 0) {
		if (c.busy > c.total)
			abort();
		pct = probe_cpu_percent(&zero, &c, 0);
		if (pct < -1 || pct > 100)
			abort();
	}
	if (probe_parse_pid(text, size, &p) == 0 && (p.pid <= 0 ||
	    p.pgrp < 0))
		abort();
	if (probe_parse_logind(text, size, &li) == 0) {
		if (li.idle + li.locked > li.sessions)
			abort();
		if (probe_logind_idle(&li, 1800000000000LL, &locked) < -1)
			abort();
	}
	secs = probe_parse_idle_seconds(text, size);
	if (secs < -1)
		abort();
	free(copy);
	return 0;
}
