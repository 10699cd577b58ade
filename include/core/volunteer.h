/*
 * volunteer.h -- whether this host may run tasks now (DESIGN.md section
 * 6), as pure logic over readings the shell's probes make: the CPU share
 * not used by volery's own tasks, seconds since the last keyboard/mouse
 * input, local time, and the IDLE hook.  No /proc, clock or device here.
 */
#ifndef VOLERY_VOLUNTEER_H
#define VOLERY_VOLUNTEER_H

#include <stdint.h>

#include "readyq.h"

#define VOL_WINDOWS_MAX 16

enum vol_mode {
	VOL_SCREENSAVER,	/* volunteer only while the host is idle */
	VOL_DEDICATED,		/* always */
};

/* What a run does while the user is back (<on_user_return>). */
enum vol_return {
	VOL_RETURN_STOP,	/* stopped whole (SIGSTOP); vacated later */
	VOL_RETURN_THROTTLE,	/* at most throttle_percent of a core */
	VOL_RETURN_NICE,	/* the lowest CPU priority */
};

enum vol_force {
	VOL_AUTO,		/* the probes decide */
	VOL_FORCE_ON,		/* IDLE on: the user says the host is idle */
	VOL_FORCE_OFF,		/* IDLE off: the user says it is in use */
};

/* A batch window: days (bit 0 Sunday .. bit 6 Saturday) it starts on,
 * from/to in minutes after midnight; to <= from crosses midnight. */
struct vol_window {
	int	days;
	int	from_min;
	int	to_min;
	int	order;		/* its queue order, or ORDER_NODE */
};

struct vol_policy {
	enum vol_mode	 mode;
	int		 input_idle_s;		/* start: no input this long */
	int		 cpu_idle_percent;	/* start: others' CPU at most */
	int		 suspend_input_s;	/* suspend: input this recent */
	int		 resume_idle_s;		/* resume: no input this long */
	int		 vacate_after_s;	/* suspended this long: vacate */
	enum vol_return	 on_return;
	int		 throttle_percent;	/* VOL_RETURN_THROTTLE's */
	int		 nwindows;
	struct vol_window windows[VOL_WINDOWS_MAX];
};

/* One round of probes.  -1 means the probe knows nothing. */
struct vol_reading {
	int64_t		 now_ms;
	int		 weekday;	/* local: 0 Sunday .. 6 Saturday */
	int		 minute;	/* local: minutes after midnight */
	int		 cpu_busy_percent;	/* not volery's own tasks */
	int64_t		 input_idle_s;	/* since the last input */
	enum vol_force	 force;
};

enum vol_state {
	VOL_BUSY,	/* the user is here: take nothing */
	VOL_IDLE,	/* screensaver mode, host idle: volunteer */
	VOL_BATCH,	/* inside a batch window: all slots, any load */
	VOL_ALWAYS,	/* dedicated mode */
};

/* What the node does now. */
struct vol_decision {
	enum vol_state	 state;
	int		 volunteer;	/* may take tasks */
	int		 suspend;	/* stop (SIGSTOP) tasks running here */
	int		 vacate;	/* give suspended tasks back (Ready) */
	const char	*name;		/* idle|busy|batch|dedicated|suspended|
					 * throttled */
	int		 order;		/* the batch window's queue order, or
					 * ORDER_NODE */
	int		 throttle;	/* slow, not stop, the tasks running
					 * here (<on_user_return>) */
	/* The batch window ahead, told to the pool for its forecasts
	 * (avail.h): it opens in window_in_ms (0: open now) and lasts
	 * window_ms; 0 window_ms: none, or none that says more than the
	 * state does (dedicated, idle, the IDLE hook's word). */
	int64_t		 window_in_ms, window_ms;
};

/* Carried from one round to the next: the hysteresis. */
struct vol {
	enum vol_state	 state;
	int64_t		 busy_since_ms;	/* when it last turned busy */
};

void	vol_init(struct vol *);
/* <on_user_return>: "stop", "nice" or "throttle PERCENT" (1-100); -1 if
 * it is none of them. */
int	vol_return_parse(const char *, enum vol_return *, int *percent);
/* The window that covers this minute: its index + 1, or 0 if none. */
int	vol_in_window(const struct vol_policy *, int weekday, int minute);
/* The batch window open at this minute or the next to open (windows
 * back to back are one): 0 with the minutes until it opens (0: open
 * now) and how long it lasts (at most a week), or -1 if none. */
int	vol_window_ahead(const struct vol_policy *, int weekday, int minute,
	    int *opens_in_min, int *lasts_min);
/* running: how many tasks run here (suspended or not). */
struct vol_decision vol_decide(struct vol *, const struct vol_policy *,
	    const struct vol_reading *, int running);

#endif
