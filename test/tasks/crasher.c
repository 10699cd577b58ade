/*
 * crasher.c -- a test task that reports some progress and then exits
 * without TERMINATED, every time.
 */
#include <stdio.h>

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("PROGRESS 10\n");
	fprintf(stderr, "crasher: giving up\n");
	return 3;
}
