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

#define DAY_MIN		1440
#define WEEK_MIN	(7 * DAY_MIN)

int
vol_window_ahead(const struct vol_policy *p, int weekday, int minute,
    int *opens_in_min, int *lasts_min)
{
	int	s[VOL_WINDOWS_MAX * 9], e[VOL_WINDOWS_MAX * 9];
	int	i, d, k, n = 0, from = -1, to = 0, grew = 1;

	/* Each window's times from yesterday's to a week ahead, in
	 * minutes from now; those not over yet. */
	for (i = 0; i < p->nwindows; i++) {
		const struct vol_window *w = &p->windows[i];
		int len = (w->to_min - w->from_min + DAY_MIN) % DAY_MIN;
		for (d = -1; d <= 7; d++) {
			if (!(w->days & (1 << ((weekday + d + 7) % 7))))
				continue;
			s[n] = d * DAY_MIN + w->from_min - minute;
			e[n] = s[n] + (len > 0 ? len : DAY_MIN);
			if (e[n] > 0)
				n++;
		}
	}
	for (k = 0; k < n; k++)
		if (from < 0 || (s[k] > 0 ? s[k] : 0) < from)
			from = s[k] > 0 ? s[k] : 0;
	if (from < 0)
		return -1;
	for (k = 0; k < n; k++)
		if (s[k] <= from && e[k] > to)
			to = e[k];
	while (grew && to - from < WEEK_MIN)
		for (grew = 0, k = 0; k < n; k++)
			if (s[k] <= to && e[k] > to)
				to = e[k], grew = 1;
	*opens_in_min = from;
	*lasts_min = to - from < WEEK_MIN ? to - from : WEEK_MIN;
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

/* The window ahead in ms from the reading: minutes start on the
 * minute, local time's as UTC's. */
static void
window_ahead(const struct vol_policy *p, const struct vol_reading *r,
    struct vol_decision *d)
{
	int64_t	into = r->now_ms >= 0 ? r->now_ms % 60000 : 0, end;
	int	in, lasts;

	if (vol_window_ahead(p, r->weekday, r->minute, &in, &lasts) == -1)
		return;
	d->window_in_ms = in > 0 ? (int64_t)in * 60000 - into : 0;
	end = (int64_t)(in + lasts) * 60000 - into;
	d->window_ms = end - d->window_in_ms;
}

struct vol_decision
vol_decide(struct vol *v, const struct vol_policy *p,
    const struct vol_reading *r, int running)
{
	struct vol_decision	d = { VOL_BUSY, 0, 0, 0, "busy", ORDER_NODE, 0, 0, 0 };
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
		window_ahead(p, r, &d);
		break;
	case VOL_ALWAYS:
		d.volunteer = 1;
		d.name = "dedicated";
		break;
	case VOL_BUSY:
		if (r->force == VOL_AUTO)
			window_ahead(p, r, &d);
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
