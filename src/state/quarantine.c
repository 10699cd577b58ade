/*
 * quarantine.c -- <state_dir>/quarantine (quarantine.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "quarantine.h"
#include "statefile.h"

void
quarantine_save(const char *state_dir, const char *text)
{
	char	path[4200];

	snprintf(path, sizeof path, "%s/quarantine", state_dir);
	if (text[0] == '\0') {
		if (unlink(path) == -1 && errno != ENOENT)
			log_warn("cannot remove %s", path);
	} else if (statefile_write(path, text) == -1)
		log_warn("cannot record the quarantine in %s", path);
}

int
quarantine_load(const char *state_dir, char *buf, size_t size)
{
	char	 path[4200];
	FILE	*f;
	int	 rc;

	snprintf(path, sizeof path, "%s/quarantine", state_dir);
	if ((f = fopen(path, "re")) == NULL)
		return -1;
	rc = fgets(buf, (int)size, f) != NULL ? 0 : -1;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return rc;
}
