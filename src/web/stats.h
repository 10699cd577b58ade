/*
 * stats.h -- the dashboard's charts (GET /api/stats, volery-api(7)):
 * tasks finished per interval, their waiting time and makespan, over the
 * last hours, from the map and the node's history; and each
 * workstation's days (pooltime.h) with the time it ran tasks.
 */
#ifndef VOLERY_STATS_H
#define VOLERY_STATS_H

#include <stdint.h>

#include <jansson.h>

struct node;

#define STATS_HOURS	6
#define STATS_HOURS_MAX	(24 * 7)

/* {hours, bucket_ms, from_ms, now_ms, buckets: [{start_ms, finished,
 * failed, wait_ms, makespan_ms}], days: [...]} for the last hours
 * (1..STATS_HOURS_MAX) up to now (wall ms). */
json_t	*stats_json(const struct node *, int hours, int64_t now);

#endif
