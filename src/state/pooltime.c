/*
 * pooltime.c -- time per volunteer state per workstation per day
 * (pooltime.h).  A fixed table: POOLTIME_NODES workstations, each with a
 * ring of POOLTIME_DAYS days.  The time between two words from a
 * workstation counts for the state the first one told, split at local
 * midnights; a gap longer than twice the heartbeat it promised is off.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bounds.h"
#include "log.h"
#include "pooltime.h"
#include "statefile.h"

#define SAVE_EVERY_MS	(10 * 60 * 1000)
#define GAP_SLACK_MS	1000

static const char *const states[] = { "idle", "busy", "batch", "dedicated",
	"suspended", "clash" };
#define NSTATES (int)(sizeof states / sizeof states[0])

struct ws {
	char	 name[NAME_MAXLEN + 1];
	int64_t	 last_ms;		/* its last word (0: none yet) */
	int64_t	 beat_ms;		/* the next due within (0: always) */
	int	 state;			/* what the last word said, or -1 */
	long	 day[POOLTIME_DAYS];	/* the day each ring slot is for
					 * (days since 1970-01-01) */
	int64_t	 ms[POOLTIME_DAYS][NSTATES];
};

static struct {
	char		 path[PATH_MAX];
	struct ws	 ws[POOLTIME_NODES];
	int		 n;
	int64_t		 saved_ms;
} pt;

/* A calendar date as a day number (days since 1970-01-01), and back. */
static long
civil_day(int y, int m, int d)
{
	struct tm	tm = { .tm_year = y - 1900, .tm_mon = m - 1,
			    .tm_mday = d };

	return (long)(timegm(&tm) / 86400);
}

static void
day_text(long day, char *buf, size_t len)
{
	time_t		t = (time_t)day * 86400;
	struct tm	tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d", &tm);
}

/*
 * The local day of a wall time, and its next midnight.  Every heartbeat
 * heard asks, and mktime() looks at /etc/localtime each time (a system
 * call a datagram): the day asked last is kept, from its start to its
 * midnight.
 */
static long
day_of(int64_t ms, int64_t *midnight)
{
	static struct {
		long	day;
		int64_t	from_ms, to_ms;	/* [from, to): that day */
	}		last = { 0, 0, 0 };
	time_t		t = (time_t)(ms / 1000);
	struct tm	tm, next;

	if (ms < last.from_ms || ms >= last.to_ms) {
		localtime_r(&t, &tm);
		last.day = civil_day(tm.tm_year + 1900, tm.tm_mon + 1,
		    tm.tm_mday);
		tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
		tm.tm_isdst = -1;
		next = tm;	/* before mktime() rewrites tm */
		next.tm_mday++;
		/* mktime() moves a midnight that does not exist (a DST
		 * jump at 00:00) to when the day begins. */
		last.from_ms = (int64_t)mktime(&tm) * 1000;
		last.to_ms = (int64_t)mktime(&next) * 1000;
	}
	if (midnight != NULL)
		*midnight = last.to_ms;
	return last.day;
}

/* The local day `back` days before the one of ms, at noon: DST-safe. */
static long
day_back(int64_t ms, int back)
{
	time_t		t = (time_t)(ms / 1000);
	struct tm	tm;

	localtime_r(&t, &tm);
	tm.tm_mday -= back;
	tm.tm_hour = 12;
	tm.tm_min = tm.tm_sec = 0;
	tm.tm_isdst = -1;
	return day_of((int64_t)mktime(&tm) * 1000, NULL);
}

static int
state_index(const char *s)
{
	int	i;

	for (i = 0; i < NSTATES; i++)
		if (strcmp(states[i], s) == 0)
			return i;
	return -1;
}

static struct ws *
find(const char *name, int create)
{
	int	i;

	for (i = 0; i < pt.n; i++)
		if (strcmp(pt.ws[i].name, name) == 0)
			return &pt.ws[i];
	if (!create || pt.n == POOLTIME_NODES || strlen(name) > NAME_MAXLEN)
		return NULL;
	memset(&pt.ws[pt.n], 0, sizeof pt.ws[pt.n]);
	snprintf(pt.ws[pt.n].name, sizeof pt.ws[pt.n].name, "%s", name);
	pt.ws[pt.n].state = -1;
	return &pt.ws[pt.n++];
}

/* The ring slot for day d, cleared if it held an older day. */
static int64_t *
slot(struct ws *w, long d)
{
	int	i = (int)(d % POOLTIME_DAYS);

	if (w->day[i] != d) {
		w->day[i] = d;
		memset(w->ms[i], 0, sizeof w->ms[i]);
	}
	return w->ms[i];
}

/* [from, to) in state s, split at midnights. */
static void
add(struct ws *w, int s, int64_t from, int64_t to)
{
	int64_t	midnight, end;
	long	d;

	while (from < to) {
		d = day_of(from, &midnight);
		end = to < midnight ? to : midnight;
		if (end <= from)	/* a clock that jumped: give up */
			return;
		slot(w, d)[s] += end - from;
		from = end;
	}
}

void
pooltime_observe(const char *name, const char *state, int64_t beat_ms,
    int64_t now)
{
	struct ws	*w = find(name, 1);

	if (w == NULL)
		return;
	if (w->state >= 0 && w->last_ms > 0 && now > w->last_ms &&
	    (w->beat_ms == 0 || now - w->last_ms <= 2 * w->beat_ms +
	    GAP_SLACK_MS))
		add(w, w->state, w->last_ms, now);
	w->last_ms = now;
	w->beat_ms = beat_ms > 0 ? beat_ms : 0;
	w->state = state_index(state);
	if (pt.path[0] != '\0' && now - pt.saved_ms >= SAVE_EVERY_MS) {
		pt.saved_ms = now;
		pooltime_save();
	}
}

void
pooltime_save(void)
{
	char	*text = NULL, line[NAME_MAXLEN + 32 + NSTATES * 24], date[32];
	size_t	 len = 0, cap = 0, l;
	int	 i, k, s;

	if (pt.path[0] == '\0')
		return;
	for (i = 0; i < pt.n; i++)
		for (k = 0; k < POOLTIME_DAYS; k++) {
			if (pt.ws[i].day[k] == 0)
				continue;
			day_text(pt.ws[i].day[k], date, sizeof date);
			l = snprintf(line, sizeof line, "%s %s", pt.ws[i].name,
			    date);
			for (s = 0; s < NSTATES; s++)
				l += snprintf(line + l, sizeof line - l, " %lld",
				    (long long)pt.ws[i].ms[k][s]);
			l += snprintf(line + l, sizeof line - l, "\n");
			if (len + l + 1 > cap) {
				char *bigger = realloc(text, cap = 2 * (len + l + 1));
				if (bigger == NULL) {
					free(text);
					return;
				}
				text = bigger;
			}
			memcpy(text + len, line, l + 1);
			len += l;
		}
	if (statefile_write(pt.path, text != NULL ? text : "") == -1)
		log_warn("cannot record the workstations' days in %s", pt.path);
	free(text);
}

int
pooltime_open(const char *state_dir)
{
	FILE		*f;
	char		 line[512], name[NAME_MAXLEN + 1];
	int		 y, m, d;
	long long	 v[NSTATES];
	struct ws	*w;
	int64_t		*ms;
	int		 s, used, skipped = 0;

	/* Only what was used: the table's untouched pages cost nothing. */
	memset(pt.ws, 0, pt.n * sizeof pt.ws[0]);
	pt.n = 0;
	pt.saved_ms = 0;
	if ((size_t)snprintf(pt.path, sizeof pt.path, "%s/pooltime",
	    state_dir) >= sizeof pt.path)
		pt.path[0] = '\0';	/* not kept: the state dir says why */
	if (pt.path[0] == '\0' || (f = fopen(pt.path, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL) {
		/* name YYYY-MM-DD idle busy batch dedicated suspended clash */
		if (sscanf(line, "%64s %4d-%2d-%2d %lld %lld %lld %lld %lld "
		    "%lld%n", name, &y, &m, &d, &v[0], &v[1], &v[2], &v[3],
		    &v[4], &v[5], &used) != 10 || line[used] != '\n' ||
		    y < 1970 || m < 1 || m > 12 || d < 1 || d > 31 ||
		    (w = find(name, 1)) == NULL) {
			skipped++;
			continue;
		}
		for (s = 0; s < NSTATES && v[s] >= 0 && v[s] <= 86400000LL;
		    s++)
			;
		if (s < NSTATES) {
			skipped++;
			continue;
		}
		ms = slot(w, civil_day(y, m, d));
		for (s = 0; s < NSTATES; s++)
			ms[s] = v[s];
	}
	fclose(f);
	if (skipped > 0)
		log_warnx("%s: %d bad lines skipped", pt.path, skipped);
	return skipped;
}

json_t *
pooltime_json(int64_t now)
{
	json_t	*days = json_array(), *day, *nodes, *o;
	long	 today = day_of(now, NULL), d, want;
	int64_t	 extra;
	char	 date[32];
	int	 back, i, k, s;

	for (back = POOLTIME_DAYS - 1; days != NULL && back >= 0; back--) {
		want = day_back(now, back);
		day_text(want, date, sizeof date);
		nodes = json_object();
		for (i = 0; i < pt.n; i++) {
			struct ws *w = &pt.ws[i];
			k = (int)(want % POOLTIME_DAYS);
			if (w->day[k] != want && !(want == today &&
			    w->state >= 0))
				continue;
			o = json_object();
			for (s = 0; s < NSTATES; s++) {
				extra = 0;
				/* Today's current stretch, not yet closed. */
				if (want == today && s == w->state &&
				    (w->beat_ms == 0 || now - w->last_ms <=
				    2 * w->beat_ms + GAP_SLACK_MS)) {
					d = day_of(w->last_ms, NULL);
					extra = d == today ? now - w->last_ms : 0;
				}
				if ((w->day[k] == want ? w->ms[k][s] : 0) +
				    extra > 0)
					json_object_set_new(o, states[s],
					    json_integer((w->day[k] == want ?
					    w->ms[k][s] : 0) + extra));
			}
			json_object_set_new(nodes, w->name, o);
		}
		day = json_pack("{s:s,s:o}", "day", date, "nodes", nodes);
		json_array_append_new(days, day);
	}
	return days;
}
