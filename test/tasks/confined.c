/*
 * confined.c -- a test task that shows what a run may do.  Its
 * description limits it to 1 s of CPU, 64 MiB and 32 open files.
 *
 *   -p whoami -x DIR  fill its working directory (a tree, and a symlink
 *                     "escape" to DIR, which the removal must not
 *                     follow) and report "uid=N", its working
 *                     directory's name (it is also $TMPDIR) and
 *                     "files=N" (its open-files limit) as outputs
 *   -p cpu            spin until the CPU limit kills it
 *   -p memory         try to use 256 MiB; say ERROR when it cannot
 */
#include <sys/resource.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int
whoami(const char *escape_to)
{
	struct rlimit	 rl;
	const char	*tmp = getenv("TMPDIR");
	char		 cwd[4096];
	int		 fd;

	if (getcwd(cwd, sizeof cwd) == NULL) {
		printf("ERROR confined: getcwd: %m\n");
		return 1;
	}
	if (tmp == NULL || strcmp(tmp, cwd) != 0) {
		printf("ERROR confined: TMPDIR is %s, not %s\n", tmp ? tmp :
		    "unset", cwd);
		return 1;
	}
	if (
	    mkdir("tree", 0755) == -1 || mkdir("tree/deeper", 0700) == -1 ||
	    (fd = open("tree/deeper/file", O_WRONLY | O_CREAT, 0600)) == -1 ||
	    write(fd, "scratch\n", 8) != 8 || close(fd) == -1 ||
	    (escape_to != NULL && symlink(escape_to, "escape") == -1) ||
	    chmod("tree", 0) == -1 || getrlimit(RLIMIT_NOFILE, &rl) == -1) {
		printf("ERROR confined: %m\n");
		return 1;
	}
	printf("TERMINATED uid=%d %s files=%llu\n", (int)getuid(),
	    strrchr(cwd, '/') + 1, (unsigned long long)rl.rlim_cur);
	return 0;
}

int
main(int argc, char **argv)
{
	const char	*mode = "", *dir = NULL;
	volatile unsigned long spin = 0;
	char		*p;
	int		 ch;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((ch = getopt(argc, argv, "p:x:")) != -1)
		if (ch == 'p')
			mode = optarg;
		else if (ch == 'x')
			dir = optarg;
	if (strcmp(mode, "whoami") == 0)
		return whoami(dir);
	if (strcmp(mode, "cpu") == 0)
		for (;;)
			spin++;
	if (strcmp(mode, "memory") == 0) {
		if ((p = malloc(256 << 20)) == NULL) {
			printf("ERROR confined: cannot allocate 256 MiB\n");
			return 1;
		}
		memset(p, 1, 256 << 20);
		printf("TERMINATED allocated 256MiB -\n");
		return 0;
	}
	printf("ERROR confined: unknown mode '%s'\n", mode);
	return 1;
}
