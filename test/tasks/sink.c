/*
 * sink.c -- a test task that takes one input and terminates at once.
 */
#include <stdio.h>

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TERMINATED 1\n");
	return 0;
}
