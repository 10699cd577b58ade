/*
 * volunteer.c -- the screensaver/batch/dedicated policy (DESIGN.md
 * section 6), in the spirit of HTCondor's desktop policy: start after a
 * long quiet spell, suspend at once when the user is back, continue after
 * a shorter quiet spell, vacate after a long suspension.
 */
#include <stdlib.h>
#include <string.h>

#include "volunteer.h"

void
vol_init(struct vol *v)
{
	v->state = VOL_BUSY;
	v->busy_since_ms = -1;
}

/* Does a window that started today or yesterday cover this minute? */
int
vol_in_window(const struct vol_policy *p, int weekday, int minute)
{
	int	i, yesterday = (weekday + 6) % 7;

	for (i = 0; i < p->nwindows; i++) {
		const struct vol_window *w = &p->windows[i];
		if (w->from_min < w->to_min) {
			if ((w->days & (1 << weekday)) &&
			    minute >= w->from_min && minute < w->to_min)
				return i + 1;
		} else {
			/* Crosses midnight (or, from == to, lasts 24 h). */
			if ((w->days & (1 << weekday)) && minute >= w->from_min)
				return i + 1;
			if ((w->days & (1 << yesterday)) && minute < w->to_min)
				return i + 1;
		}
	}
	return 0;
}

/* The user is at the machine (or something else loads it). */
static int
user_active(const struct vol_policy *p, const struct vol_reading *r,
    int within_s)
{
	if (r->input_idle_s >= 0 && r->input_idle_s < within_s)
		return 1;
	return r->cpu_busy_percent > p->cpu_idle_percent;
}

/* Quiet long enough to (re)start: no input for quiet_s, CPU low. */
static int
quiet(const struct vol_policy *p, const struct vol_reading *r, int quiet_s)
{
	/* An unknown input probe does not hold the host back: a host
	 * without keyboard or session is judged by its CPU. */
	if (r->input_idle_s >= 0 && r->input_idle_s < quiet_s)
		return 0;
	return r->cpu_busy_percent < 0 ||
	    r->cpu_busy_percent <= p->cpu_idle_percent;
}

struct vol_decision
vol_decide(struct vol *v, const struct vol_policy *p,
    const struct vol_reading *r, int running)
{
	struct vol_decision	d = { VOL_BUSY, 0, 0, 0, "busy", ORDER_NODE, 0 };
	enum vol_state		next;
	int			window = 0;

	if (r->force == VOL_FORCE_ON)
		next = VOL_IDLE;
	else if (r->force == VOL_FORCE_OFF)
		next = VOL_BUSY;
	else if (p->mode == VOL_DEDICATED)
		next = VOL_ALWAYS;
	else if ((window = vol_in_window(p, r->weekday, r->minute)) > 0)
		next = VOL_BATCH;
	else if (v->state == VOL_IDLE)
		/* Idle: stay until the user is back. */
		next = user_active(p, r, p->suspend_input_s) ? VOL_BUSY :
		    VOL_IDLE;
	else if (running > 0)
		/* Busy with a suspended task: resume after a shorter
		 * quiet spell. */
		next = quiet(p, r, p->resume_idle_s) ? VOL_IDLE : VOL_BUSY;
	else
		next = quiet(p, r, p->input_idle_s) ? VOL_IDLE : VOL_BUSY;

	if (next == VOL_BUSY && v->state != VOL_BUSY)
		v->busy_since_ms = r->now_ms;
	if (next != VOL_BUSY)
		v->busy_since_ms = -1;
	v->state = next;

	d.state = next;
	switch (next) {
	case VOL_IDLE:
		d.volunteer = 1;
		d.name = "idle";
		break;
	case VOL_BATCH:
		d.volunteer = 1;
		d.name = "batch";
		d.order = p->windows[window - 1].order;
		break;
	case VOL_ALWAYS:
		d.volunteer = 1;
		d.name = "dedicated";
		break;
	case VOL_BUSY:
		/* Stopped, and given back after a while; or slowed, creeping
		 * on for as long as the user stays. */
		d.suspend = running > 0 && p->on_return == VOL_RETURN_STOP;
		d.throttle = running > 0 && p->on_return != VOL_RETURN_STOP;
		d.name = d.suspend ? "suspended" : d.throttle ? "throttled" :
		    "busy";
		d.vacate = d.suspend && v->busy_since_ms >= 0 &&
		    r->now_ms - v->busy_since_ms >=
		    (int64_t)p->vacate_after_s * 1000;
		break;
	}
	return d;
}

int
vol_return_parse(const char *s, enum vol_return *how, int *percent)
{
	char	*end;
	long	 v;

	if (strcmp(s, "stop") == 0 || strcmp(s, "nice") == 0) {
		*how = s[0] == 's' ? VOL_RETURN_STOP : VOL_RETURN_NICE;
		return 0;
	}
	if (strncmp(s, "throttle ", 9) != 0 || s[9] < '1' || s[9] > '9' ||
	    (v = strtol(s + 9, &end, 10)) > 100 || *end != '\0')
		return -1;
	*how = VOL_RETURN_THROTTLE;
	*percent = (int)v;
	return 0;
}
