/*
 * lingerer.c -- a test task that reports its result and does not exit:
 * its result counts once the node has stopped it (SIGTERM after the
 * grace period), with what the run cost.
 */
#include <stdio.h>
#include <unistd.h>

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TERMINATED lingered\n");
	for (;;)
		pause();
}
