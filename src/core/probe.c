/*
 * probe.c -- parsers and arithmetic of the idle probes (probe.h).  Input
 * comes from /proc, loginctl or an owner's command: each parser reads at
 * most len bytes, needs no NUL and rejects what it does not understand.
 */
#include <ctype.h>
#include <string.h>

#include "probe.h"

/* An unsigned decimal at *p (advanced past it); -1 if none. */
static int
take_u64(const char **p, const char *end, uint64_t *v)
{
	const char	*s = *p;

	*v = 0;
	if (s >= end || !isdigit((unsigned char)*s))
		return -1;
	for (; s < end && isdigit((unsigned char)*s); s++) {
		if (*v > (UINT64_MAX - 9) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	return 0;
}

/* A signed decimal (the 3.x-era pgrp and tty fields may be negative). */
static int
take_i64(const char **p, const char *end, int64_t *v)
{
	uint64_t	u;
	int		neg = 0;

	if (*p < end && **p == '-') {
		neg = 1;
		(*p)++;
	}
	if (take_u64(p, end, &u) == -1 || u > INT64_MAX)
		return -1;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

static void
skip_blanks(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
}

int
probe_parse_cpu(const char *text, size_t len, struct cpu_sample *c)
{
	const char	*p = text, *end = text + len;
	uint64_t	 v[8];
	int		 i;

	/* The first line: "cpu  user nice system idle iowait irq softirq
	 * steal [guest guest_nice]" (guest is inside user already). */
	if (len < 4 || memcmp(p, "cpu ", 4) != 0)
		return -1;
	p += 4;
	for (i = 0; i < 8; i++) {
		skip_blanks(&p, end);
		if (take_u64(&p, end, &v[i]) == -1) {
			if (i < 4)
				return -1;
			for (; i < 8; i++)	/* old kernels: fewer */
				v[i] = 0;
			break;
		}
	}
	c->total = 0;
	for (i = 0; i < 8; i++) {
		if (c->total + v[i] < c->total)
			return -1;
		c->total += v[i];
	}
	c->busy = c->total - v[3] - v[4];	/* minus idle and iowait */
	return 0;
}

int
probe_parse_pid(const char *text, size_t len, struct pid_sample *s)
{
	const char	*p = text, *end = text + len, *close = NULL;
	int64_t		 v;
	uint64_t	 u, ticks = 0;
	int		 field;

	/* "pid (comm) state ppid pgrp ...": comm may hold anything, so the
	 * fields start after the last ')'. */
	if (take_i64(&p, end, &v) == -1 || v <= 0 || v > INT32_MAX)
		return -1;
	s->pid = (int)v;
	if (p >= end || *p != ' ' || p + 1 >= end || p[1] != '(')
		return -1;
	for (; p < end; p++)
		if (*p == ')')
			close = p;
	if (close == NULL || close + 3 > end || close[1] != ' ')
		return -1;
	p = close + 2;
	s->state = *p++;
	if (!isalpha((unsigned char)s->state))
		return -1;
	/* Fields 4 (ppid) to 17 (cstime); 1-based as in proc(5). */
	for (field = 4; field <= 17; field++) {
		if (p >= end || *p != ' ')
			return -1;
		p++;
		if (field >= 14) {
			if (take_u64(&p, end, &u) == -1 ||
			    ticks + u < ticks)
				return -1;
			ticks += u;
		} else {
			if (take_i64(&p, end, &v) == -1)
				return -1;
			if (field == 5) {
				if (v < 0 || v > INT32_MAX)
					return -1;
				s->pgrp = (int)v;
			}
		}
	}
	s->ticks = ticks;
	return 0;
}

int
probe_cpu_percent(const struct cpu_sample *prev, const struct cpu_sample *cur,
    uint64_t own_ticks)
{
	uint64_t	total, busy;

	if (cur->total <= prev->total || cur->busy < prev->busy)
		return -1;
	total = cur->total - prev->total;
	busy = cur->busy - prev->busy;
	/* Our tasks' ticks and the host's are counted apart: the first
	 * may run a little ahead of the second. */
	busy = busy > own_ticks ? busy - own_ticks : 0;
	if (busy > total)
		busy = total;
	return (int)((busy * 100 + total / 2) / total);
}

int64_t
probe_parse_idle_seconds(const char *text, size_t len)
{
	const char	*p = text, *end = text + len;
	uint64_t	 secs, frac;

	while (p < end && isspace((unsigned char)*p))
		p++;
	if (take_u64(&p, end, &secs) == -1 || secs > 100LL * 365 * 86400)
		return -1;
	if (p < end && *p == '.') {
		p++;
		if (take_u64(&p, end, &frac) == -1)
			return -1;
	}
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p == end ? (int64_t)secs : -1;
}

/* One "Key=Value" line of a session block. */
static void
logind_field(const char *key, size_t klen, const char *val, size_t vlen,
    int *user, int *idle, int *locked, int64_t *since)
{
#define IS(k, s) (klen == sizeof(k) - 1 && memcmp(key, k, klen) == 0 && \
	    vlen == sizeof(s) - 1 && memcmp(val, s, vlen) == 0)
	const char	*p = val;
	uint64_t	 us;

	if (IS("Class", "user"))
		*user = 1;
	else if (IS("IdleHint", "yes"))
		*idle = 1;
	else if (IS("LockedHint", "yes"))
		*locked = 1;
	else if (klen == 13 && memcmp(key, "IdleSinceHint", 13) == 0 &&
	    take_u64(&p, val + vlen, &us) == 0 && p == val + vlen)
		*since = (int64_t)(us / 1000);
#undef IS
}

int
probe_parse_logind(const char *text, size_t len, struct logind_info *li)
{
	const char	*p = text, *end = text + len;
	int		 user = 0, idle = 0, locked = 0, fields = 0;
	int64_t		 since = 0;

	memset(li, 0, sizeof *li);
	for (;;) {
		const char *eol = p, *eq;
		while (eol < end && *eol != '\n')
			eol++;
		if (eol == p) {
			/* A blank line or the end closes a session block. */
			if (fields > 0 && user) {
				li->sessions++;
				if (idle) {
					li->idle++;
					if (since > li->idle_since_ms)
						li->idle_since_ms = since;
				} else if (locked)
					li->locked++;
			}
			user = idle = locked = fields = 0;
			since = 0;
		} else {
			eq = memchr(p, '=', eol - p);
			if (eq == NULL || eq == p)
				return -1;
			logind_field(p, eq - p, eq + 1, eol - eq - 1,
			    &user, &idle, &locked, &since);
			fields++;
		}
		if (eol >= end)
			break;
		p = eol + 1;
	}
	return 0;
}

int64_t
probe_logind_idle(const struct logind_info *li, int64_t now_ms,
    int64_t *locked_since_ms)
{
	int64_t	since;

	if (li->sessions == 0 || li->idle + li->locked < li->sessions) {
		*locked_since_ms = -1;
		return -1;
	}
	if (li->locked == 0) {
		*locked_since_ms = -1;
		since = li->idle_since_ms;
	} else {
		if (*locked_since_ms < 0)
			*locked_since_ms = now_ms;
		since = *locked_since_ms;
		if (li->idle > 0 && li->idle_since_ms > since)
			since = li->idle_since_ms;
	}
	if (since <= 0 || since > now_ms)
		return 0;
	return (now_ms - since) / 1000;
}

int64_t
probe_input_idle(const int64_t *votes, int n)
{
	int64_t	best = -1;
	int	i;

	for (i = 0; i < n; i++)
		if (votes[i] >= 0 && (best < 0 || votes[i] < best))
			best = votes[i];
	return best;
}
