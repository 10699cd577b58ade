/*
 * fuzz_pooltime.c -- libFuzzer: any bytes as <state_dir>/pooltime, the
 * record of the workstations' days (pooltime.h).  Bad lines are skipped,
 * no day holds more than a day, and nothing crashes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "pooltime.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char	 dir[64];
	char		 path[128];
	FILE		*f;
	json_t		*days, *day, *node, *v;
	const char	*name, *state;
	size_t		 i;

	if (dir[0] == '\0' && mkdtemp(strcpy(dir, "/tmp/fuzz-pooltime-XXXXXX"))
	    == NULL)
		abort();
	snprintf(path, sizeof path, "%s/pooltime", dir);
	if ((f = fopen(path, "w")) == NULL)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
	pooltime_open(dir);
	pooltime_observe("fuzz", "idle", 0, 1795680000000LL);
	days = pooltime_json(1795680060000LL);
	if (!json_is_array(days) || json_array_size(days) != POOLTIME_DAYS)
		abort();
	json_array_foreach(days, i, day)
		json_object_foreach(json_object_get(day, "nodes"), name, node)
			json_object_foreach(node, state, v)
				if (json_integer_value(v) <= 0 ||
				    json_integer_value(v) > 86400000LL)
					abort();
	json_decref(days);
	return 0;
}
