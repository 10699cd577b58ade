/*
 * stamp.c -- a command for the start benchmarks (tools/bench_start.py,
 * tools/bench_side.py): its first instruction reads the wall clock, and
 * it prints it, in ns, as its only line -- on stdout, or into FILE (made
 * whole by a rename) when one is named.  Nothing before main but the
 * loader's work.
 */
#include <stdio.h>
#include <time.h>

int
main(int argc, char **argv)
{
	struct timespec	now;
	char		tmp[4096];
	FILE	       *out = stdout;

	clock_gettime(CLOCK_REALTIME, &now);
	if (argc > 1) {
		if (snprintf(tmp, sizeof(tmp), "%s.new", argv[1]) >=
		    (int)sizeof(tmp) || (out = fopen(tmp, "w")) == NULL)
			return 1;
	}
	fprintf(out, "%lld\n", (long long)now.tv_sec * 1000000000LL +
	    now.tv_nsec);
	if (argc > 1 && (fclose(out) != 0 || rename(tmp, argv[1]) != 0))
		return 1;
	return 0;
}
