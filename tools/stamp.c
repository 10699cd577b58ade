/*
 * stamp.c -- a command for the start benchmark (tools/bench_start.py, make bench-start):
 * its first instruction reads the wall clock, and it prints it, in ns,
 * as its only line.  Nothing before main but the loader's work.
 */
#include <stdio.h>
#include <time.h>

int
main(void)
{
	struct timespec	now;

	clock_gettime(CLOCK_REALTIME, &now);
	printf("%lld\n", (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
	return 0;
}
