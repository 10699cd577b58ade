/*
 * simtask.c -- a simulated PLMI2 task (thesis section 5.2.2), built four
 * times as import, georeferencing, segmentation and anomaly_detection.
 *
 *   <task> [-p <path>] [-i <input_id>]... [-x <parameters.xml>]
 *
 * It speaks the runner protocol (DESIGN.md section 4): PROGRESS every
 * tenth of its duration, CANCELLED when the node writes CANCEL on its
 * stdin, TERMINATED <output ids> at the end, ERROR on bad arguments.
 * The duration comes from <parameters><duration_ms>N</duration_ms>
 * </parameters> in the -x file (default 2000 ms).  Output ids are
 * derived from the task's uuid (VOLERY_TASK), so they are unique.
 */
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef TASK_NAME
#define TASK_NAME "simtask"
#endif
#ifndef TASK_NEEDS_PATH
#define TASK_NEEDS_PATH 0
#endif

static int64_t
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void __attribute__((noreturn))
fail(const char *msg, const char *arg)
{
	printf("ERROR %s%s%s\n", msg, arg != NULL ? ": " : "",
	    arg != NULL ? arg : "");
	exit(1);
}

/* The whole number inside <duration_ms> of the parameters file. */
static long
read_duration(const char *file)
{
	char	 buf[65536], *p, *end;
	size_t	 n;
	long	 v;
	FILE	*f;

	if ((f = fopen(file, "r")) == NULL)
		fail("cannot read parameters file", file);
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (strstr(buf, "<parameters") == NULL)
		fail("parameters file has no <parameters> element", file);
	if ((p = strstr(buf, "<duration_ms>")) == NULL)
		return 2000;
	p += strlen("<duration_ms>");
	while (isspace((unsigned char)*p))
		p++;
	errno = 0;
	v = strtol(p, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (end == p || errno != 0 || v < 0 || v > 86400000 ||
	    strncmp(end, "</duration_ms>", 14) != 0)
		fail("bad <duration_ms> in", file);
	return v;
}

static uint64_t
fnv1a(const char *s, int salt)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)salt;

	while (*s != '\0') {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ULL;
	}
	return h;
}

/* Wait up to ms for "CANCEL" on stdin; 1 if it came. */
static int
cancel_requested(int ms)
{
	static int	stdin_open = 1;
	struct pollfd	pfd = { 0, POLLIN, 0 };
	char		line[256];

	if (!stdin_open) {
		if (ms > 0)
			poll(NULL, 0, ms);
		return 0;
	}
	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	if (fgets(line, sizeof line, stdin) == NULL) {
		stdin_open = 0;	/* the node closed it; keep working */
		return 0;
	}
	return strncmp(line, "CANCEL", 6) == 0;
}

int
main(int argc, char **argv)
{
	const char	*path = NULL, *params = NULL, *me;
	int		 ninputs = 0, ch, step;
	long		 duration = 2000;
	int64_t		 start;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((ch = getopt(argc, argv, "p:i:x:")) != -1) {
		switch (ch) {
		case 'p':
			path = optarg;
			break;
		case 'i':
			ninputs++;
			break;
		case 'x':
			params = optarg;
			break;
		default:
			fail("usage: " TASK_NAME " [-p path] [-i input]... "
			    "[-x parameters.xml]", NULL);
		}
	}
	if (TASK_NEEDS_PATH && path == NULL)
		fail(TASK_NAME " needs -p <path to raw files>", NULL);
	if (ninputs != TASK_INPUTS) {
		char want[64];
		snprintf(want, sizeof want, "%d expected, %d given",
		    TASK_INPUTS, ninputs);
		fail(TASK_NAME ": wrong number of -i inputs", want);
	}
	if (params != NULL)
		duration = read_duration(params);
	if ((me = getenv("VOLERY_TASK")) == NULL)
		me = "standalone";

	start = now_ms();
	for (step = 1; step <= 10; step++) {
		int64_t due = start + duration * step / 10;
		for (;;) {
			int64_t left = due - now_ms();
			if (cancel_requested(left > 0 ? (int)left : 0)) {
				printf("CANCELLED\n");
				return 0;
			}
			if (left <= 0)
				break;
		}
		if (step < 10)
			printf("PROGRESS %d\n", step * 10);
	}
	printf("TERMINATED");
	for (step = 1; step <= TASK_OUTPUTS; step++)
		printf(" %llu", (unsigned long long)
		    (fnv1a(me, step) % 1000000000ULL));
	printf("\n");
	return 0;
}
