/*
 * members.c -- <state_dir>/members (members.h).  The core checks each
 * name it is given, so a damaged file costs a few members, no more.
 */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "members.h"
#include "statefile.h"

void
members_save(const char *state_dir, const char *text)
{
	char	path[4200];

	snprintf(path, sizeof path, "%s/members", state_dir);
	if (statefile_write(path, text) == -1)
		log_warn("cannot record the members in %s", path);
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
