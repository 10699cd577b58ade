/*
 * pooltime.h -- how each workstation spent its days (the dashboard's
 * busy/idle chart): the time in each volunteer state, per workstation
 * and local day, as this node saw it in their heartbeats (and its own
 * idle probes' decisions).  A workstation silent for longer than its
 * heartbeats promised was off: that time counts nowhere.  Kept in
 * <state_dir>/pooltime across restarts, for the last POOLTIME_DAYS days.
 */
#ifndef VOLERY_POOLTIME_H
#define VOLERY_POOLTIME_H

#include <stdint.h>

#include <jansson.h>

#define POOLTIME_DAYS	8
#define POOLTIME_NODES	64	/* workstations followed; more are not */

/* Read <state_dir>/pooltime, if any (bad lines are skipped, and said);
 * later writes go there.  The number of lines skipped. */
int	pooltime_open(const char *state_dir);
/* name said it is in volunteer state (idle, busy, ...) at now (wall
 * ms), its next word due within beat_ms (0: this node, always there). */
void	pooltime_observe(const char *name, const char *state, int64_t beat_ms,
	    int64_t now);
/* Write the record now (it is written by itself every ten minutes). */
void	pooltime_save(void);
/* [{"day": "YYYY-MM-DD", "nodes": {name: {state: ms, ...}}}], the
 * oldest day first, up to now. */
json_t	*pooltime_json(int64_t now);

#endif
