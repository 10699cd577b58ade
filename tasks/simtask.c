/*
 * simtask.c -- a simulated PLMI2 task (thesis section 5.2.2), built four
 * times as import, georeferencing, segmentation and anomaly_detection.
 *
 *   <task> [-p <path>] [-i <input_id>]... [-x <parameters.xml>]
 *          [-c <checkpoint>]
 *
 * It speaks the runner protocol (DESIGN.md section 4): PROGRESS every
 * tenth of its duration, CANCELLED when the node writes CANCEL on its
 * stdin, TERMINATED <output ids> at the end, ERROR on bad arguments.
 * The duration comes from <parameters><duration_ms>N</duration_ms>
 * </parameters> in the -x file (default 2000 ms).  Output ids are
 * derived from the task's uuid (VOLERY_TASK), so they are unique.
 *
 * With <checkpoint_ms>N</checkpoint_ms> it writes a checkpoint (the
 * hundredths of its work done) into its run dir at least N ms apart and
 * says CHECKPOINT; started with -c, it goes on from that checkpoint's
 * work, and says on stderr where it resumed.
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

/* The whole number inside <tag> of the parameters file (def if none). */
static long
read_param(const char *file, const char *tag, long def)
{
	char	 open_tag[64], close_tag[64];
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
	snprintf(open_tag, sizeof open_tag, "<%s>", tag);
	snprintf(close_tag, sizeof close_tag, "</%s>", tag);
	if ((p = strstr(buf, open_tag)) == NULL)
		return def;
	p += strlen(open_tag);
	while (isspace((unsigned char)*p))
		p++;
	errno = 0;
	v = strtol(p, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (end == p || errno != 0 || v < 0 || v > 86400000 ||
	    strncmp(end, close_tag, strlen(close_tag)) != 0)
		fail("bad parameter in", file);
	return v;
}

/* The hundredths done that checkpoint file says. */
static int
read_checkpoint(const char *file)
{
	FILE	*f = fopen(file, "r");
	int	 done = -1;

	if (f == NULL || fscanf(f, "simtask-checkpoint %d", &done) != 1 ||
	    done < 0 || done > 100)
		fail("not a checkpoint of this task", file);
	fclose(f);
	return done;
}

/* Write the checkpoint whole, then rename it: never half a one. */
static void
write_checkpoint(int done)
{
	FILE	*f = fopen("checkpoint.tmp", "w");

	if (f == NULL || fprintf(f, "simtask-checkpoint %d\n", done) < 0 ||
	    fclose(f) != 0 || rename("checkpoint.tmp", "checkpoint") != 0)
		fail("cannot write its checkpoint", NULL);
	printf("CHECKPOINT checkpoint\n");
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
	const char	*path = NULL, *params = NULL, *me, *resume = NULL;
	int		 ninputs = 0, ch, step, first = 1;
	long		 duration = 2000, every = 0;
	int64_t		 start, saved;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((ch = getopt(argc, argv, "p:i:x:c:")) != -1) {
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
		case 'c':
			resume = optarg;
			break;
		default:
			fail("usage: " TASK_NAME " [-p path] [-i input]... "
			    "[-x parameters.xml] [-c checkpoint]", NULL);
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
	if (params != NULL) {
		duration = read_param(params, "duration_ms", 2000);
		every = read_param(params, "checkpoint_ms", 0);
	}
	if (resume != NULL) {
		first = read_checkpoint(resume) + 1;
		fprintf(stderr, TASK_NAME ": resumed at %d%% from its "
		    "checkpoint\n", first - 1);
	}
	if ((me = getenv("VOLERY_TASK")) == NULL)
		me = "standalone";

	/* In hundredths, from where it resumed. */
	start = now_ms() - duration * (first - 1) / 100;
	saved = now_ms();
	for (step = first; step <= 100; step++) {
		int64_t due = start + duration * step / 100;
		for (;;) {
			int64_t left = due - now_ms();
			if (cancel_requested(left > 0 ? (int)left : 0)) {
				printf("CANCELLED\n");
				return 0;
			}
			if (left <= 0)
				break;
		}
		if (step < 100 && step % 10 == 0)
			printf("PROGRESS %d\n", step);
		if (every > 0 && step < 100 && now_ms() - saved >= every) {
			write_checkpoint(step);
			saved = now_ms();
		}
	}
	printf("TERMINATED");
	for (step = 1; step <= TASK_OUTPUTS; step++)
		printf(" %llu", (unsigned long long)
		    (fnv1a(me, step) % 1000000000ULL));
	printf("\n");
	return 0;
}
