/*
 * stay.c -- how long this node stays a volunteer: the periods it
 * volunteered for, kept across restarts (ACT_STAY: a desktop switched
 * off every evening still knows how long its idle spells last), and the
 * expected rest of the present one, which its heartbeats tell and the
 * placement and the fit rank it by (placement.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodestate.h"

static void
add_period(struct placement *pl, int64_t s)
{
	pl->periods[pl->next_period] = s;
	pl->next_period = (pl->next_period + 1) % PLACEMENT_PERIODS;
	if (pl->nperiods < PLACEMENT_PERIODS)
		pl->nperiods++;
}

/* What the shell keeps across a restart (ACT_STAY): a desktop switched
 * off every evening still knows how long its idle spells last, and how
 * fast it is. */
void
placement_tell_stay(struct node *n)
{
	const struct placement	*pl = &n->placement;
	char			 text[24 + PLACEMENT_PERIODS * 22 + 20];
	size_t			 len;
	int			 i, k;

	len = (size_t)snprintf(text, sizeof text, "%" PRId64, pl->period_start);
	for (i = 0; i < pl->nperiods; i++) {
		k = (pl->next_period - pl->nperiods + i + PLACEMENT_PERIODS) %
		    PLACEMENT_PERIODS;
		len += (size_t)snprintf(text + len, sizeof text - len,
		    " %" PRId64, pl->periods[k]);
	}
	if (pl->speed != SPEED_UNIT)
		snprintf(text + len, sizeof text - len, " speed=%d", pl->speed);
	outbox_text(&n->out, ACT_STAY, "", text);
}

void
placement_volunteer(struct node *n, int on, int64_t now)
{
	struct placement	*pl = &n->placement;

	if (on && pl->period_start < 0)
		pl->period_start = now;
	else if (!on && pl->period_start >= 0) {
		add_period(pl, (now - pl->period_start) / 1000);
		pl->period_start = -1;
	} else
		return;
	placement_tell_stay(n);
}

/* A period, as ACT_STAY tells it: up to a year (s). */
#define STAY_MAX_S	(366LL * 86400)

int
node_stay_restore(struct node *n, const char *text, int64_t alive_ms,
    int64_t now)
{
	struct placement	*pl = &n->placement;
	int64_t			 v[PLACEMENT_PERIODS], start;
	const char		*p = text;
	char			*end;
	int			 count = 0, i;
	long			 speed = SPEED_UNIT;
	char			 kept[40];

	if (strncmp(p, "-1", 2) == 0 && (p[2] == ' ' || p[2] == '\0'))
		start = -1, p += 2;
	else if (*p < '0' || *p > '9' || (start = strtoll(p, &end, 10)) < 0 ||
	    start > alive_ms || alive_ms > now || (*end != ' ' && *end != '\0'))
		goto bad;
	else
		p = end;
	while (*p == ' ') {
		p++;
		/* Last, and only if learned: our speed (per mille). */
		if (strncmp(p, "speed=", 6) == 0) {
			p += 6;
			if (*p < '0' || *p > '9' || (speed = strtol(p, &end,
			    10)) < SPEED_MIN || speed > SPEED_MAX ||
			    *end != '\0')
				goto bad;
			p = end;
			break;
		}
		if (count == PLACEMENT_PERIODS || *p < '0' || *p > '9' ||
		    (v[count] = strtoll(p, &end, 10)) > STAY_MAX_S ||
		    (*end != ' ' && *end != '\0'))
			goto bad;
		count++;
		p = end;
	}
	if (*p != '\0')
		goto bad;
	for (i = 0; i < count; i++)
		add_period(pl, v[i]);
	if (start >= 0 && (alive_ms - start) / 1000 <= STAY_MAX_S)
		add_period(pl, (alive_ms - start) / 1000);
	pl->speed = pl->kept_speed = (int)speed;
	snprintf(kept, sizeof kept, ", and its speed %.2f", (double)speed /
	    SPEED_UNIT);
	outbox_log(&n->out, VLOG_INFO, "node %s knows %d volunteer period%s "
	    "from before its restart%s%s", n->cfg.name, pl->nperiods,
	    pl->nperiods == 1 ? "" : "s", start >= 0 ? ", the last ended by "
	    "the stop" : "", speed != SPEED_UNIT ? kept : "");
	/* Written again as it is now: a start that volunteered before this
	 * restore told only its new period's start. */
	placement_tell_stay(n);
	return 0;
bad:
	outbox_log(&n->out, VLOG_WARNING, "node %s: what it kept of its "
	    "volunteer periods is not what it wrote; it learns them anew",
	    n->cfg.name);
	return -1;
}

/*
 * The expected rest of our volunteer period, E[L - a | L > a] over the
 * periods we saw last longer than its age a.  Without such a history,
 * its age: desktop availability has a decreasing hazard (Weibull shape
 * below 1), so a machine idle longer is likelier to stay idle longer.
 */
int64_t
placement_life_s(struct node *n, int64_t now)
{
	struct placement	*pl = &n->placement;
	int64_t			 age, sum = 0;
	int			 i, k = 0;

	if (!run_volunteering(n))
		return 0;
	if (pl->period_start < 0) {
		pl->period_start = now;
		placement_tell_stay(n);
	}
	age = (now - pl->period_start) / 1000;
	for (i = 0; i < pl->nperiods; i++)
		if (pl->periods[i] > age) {
			sum += pl->periods[i] - age;
			k++;
		}
	return pl->nperiods >= 3 && k > 0 ? sum / k : age;
}

int64_t
placement_life_tell(struct node *n, int64_t now)
{
	return n->placement.life_told = placement_life_s(n, now);
}
