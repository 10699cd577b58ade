/*
 * stubborn.c -- a test task that ignores CANCEL and SIGTERM and leaves a
 * grandchild in its process group, so only SIGKILL to the whole group
 * stops it.  It tells its pids on stderr (they land in the node's log).
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int
main(void)
{
	pid_t	child;

	signal(SIGTERM, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if ((child = fork()) == 0) {
		for (;;)
			pause();
	}
	fprintf(stderr, "stubborn: pid %d child %d\n", (int)getpid(),
	    (int)child);
	printf("PROGRESS 5\n");
	for (;;)
		pause();
}
