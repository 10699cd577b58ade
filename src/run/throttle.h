/*
 * throttle.h -- a run slowed, not stopped, while the host's user is
 * back (<on_user_return>throttle PERCENT</on_user_return>, or nice;
 * issue 37): long work creeps on instead of freezing.
 *
 *   - where the run's cgroup (v2) has the cpu controller: its cpu.max,
 *     PERCENT of one core;
 *   - on a hybrid host (cgroup v1 holds the cpu controller): a cgroup of
 *     the v1 cpu hierarchy per run, which its processes are moved into
 *     (what they start later is born there), cpu.cfs_quota_us; freed,
 *     they go back (their nice counts again) and the group goes;
 *   - else, and for nice: every process of the run at the lowest CPU
 *     priority (nice 19), back to the node's runs' own after (a
 *     screensaver's are at 19 already: nice changes nothing there).
 */
#ifndef VOLERY_THROTTLE_H
#define VOLERY_THROTTLE_H

#include <sys/types.h>

#include "volunteer.h"

/* How runs are slowed (VOL_RETURN_*, percent of one core), for node,
 * whose runs start at nice (back to it when freed). */
void	throttle_init(enum vol_return how, int percent, int nice,
	    const char *node);
/* Slow (on) or free the run of uuid, its process group pgid: 0, or -1
 * (logged). */
int	throttle_run(const char *uuid, pid_t pgid, int on);
/* The run ended: what throttled it goes too. */
void	throttle_gone(const char *uuid);
/* How it throttles, in a word for the log and `volery nodes`:
 * "cpu.max", "cpu-v1", "nice" or "stop". */
const char *throttle_how(void);
/* A clean stop, every run ended: their groups go. */
void	throttle_shutdown(void);

#endif
