/*
 * reputation.c -- <state_dir>/node holds "reputation N" and "clean 0|1".
 * The first start takes the configured reputation; a start after a stop
 * that was not clean (crash, kill -9, power off) takes one less.
 */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "reputation.h"
#include "statefile.h"

static void
record(const char *state_dir, int reputation, int clean)
{
	char	path[4200], text[64];

	snprintf(path, sizeof path, "%s/node", state_dir);
	snprintf(text, sizeof text, "reputation %d\nclean %d\n", reputation,
	    clean);
	if (statefile_write(path, text) == -1)
		log_msg(VLOG_ERROR, "cannot record reputation in %s", path);
}

int
reputation_start(const char *state_dir, int configured)
{
	char	 path[4200];
	FILE	*f;
	int	 reputation = configured, clean = 1;

	snprintf(path, sizeof path, "%s/node", state_dir);
	if ((f = fopen(path, "r")) != NULL) {
		if (fscanf(f, "reputation %d clean %d", &reputation,
		    &clean) != 2 || reputation < 0) {
			log_warnx("%s is damaged; reputation back "
			    "to %d", path, configured);
			reputation = configured;
			clean = 1;
		}
		fclose(f);
		if (!clean && reputation > 0) {
			reputation--;
			log_warnx("the last stop was not clean: "
			    "reputation now %d", reputation);
		}
	}
	record(state_dir, reputation, 0);
	return reputation;
}

void
reputation_clean_stop(const char *state_dir)
{
	char	 path[4200];
	FILE	*f;
	int	 reputation, clean;

	snprintf(path, sizeof path, "%s/node", state_dir);
	if ((f = fopen(path, "r")) == NULL)
		return;
	if (fscanf(f, "reputation %d clean %d", &reputation, &clean) == 2)
		record(state_dir, reputation, 1);
	fclose(f);
}
