/*
 * members.c -- <state_dir>/members (members.h).  The core checks each
 * name it is given, so a damaged file costs a few members, no more.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "members.h"

void
members_save(const char *state_dir, const char *text)
{
	char	path[4200], tmp[4300];
	size_t	len = strlen(text);
	int	fd;

	snprintf(path, sizeof path, "%s/members", state_dir);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1 || write(fd, text, len) != (ssize_t)len ||
	    fsync(fd) == -1 || rename(tmp, path) == -1)
		log_warn("cannot record the members in %s", path);
	if (fd != -1)
		close(fd);
}

void
members_load(const char *state_dir, void (*cb)(const char *, void *),
    void *arg)
{
	char	 path[4200], line[256];
	FILE	*f;

	snprintf(path, sizeof path, "%s/members", state_dir);
	if ((f = fopen(path, "r")) == NULL)
		return;
	while (fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		cb(line, arg);
	}
	fclose(f);
}
