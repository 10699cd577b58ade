/*
 * watch.c -- follow tasks by SUBSCRIBE.  On a terminal each task has a
 * line with a bar, redrawn in place; in a pipe or file each change is a
 * plain line, so logs and scripts can read it.
 */
#include <sys/ioctl.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "cmd.h"
#include "conn.h"
#include "watch.h"
#include "wire.h"

#define SUBSCRIBE_CHUNK 100	/* uuids per line: 37 bytes each, < 4096 */
#define BAR_WIDTH 24
#define BAR_MIN 8
#define LINE_MAX_COLS 512

/* The terminal was resized (SIGWINCH): redraw at once, to its width. */
static volatile sig_atomic_t	resized;

static void
on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

/* Ended: Terminated, Cancelled or Failed ("Suspended" is not a state
 * of the task model, it is a Running task). */
static int
is_final(const char *state)
{
	enum task_state	s;

	return task_state_parse(state, &s) == 0 && task_is_final(s);
}

static double
wall_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double
mono_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
watch_progress(struct watched *v, int n, const char *line)
{
	struct wire_progress	p;
	int			i;

	if (wire_progress_parse(line, &p) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (strcmp(v[i].p.uuid, p.uuid) == 0) {
			v[i].p = p;
			v[i].ends_at = p.eta >= 0 ? mono_s() + p.eta : -1;
			return i;
		}
	return -1;
}

/* With a deadline, what an expected end (monotonic s, -1 none) leaves
 * of it: ", 5m to spare" ("": none). */
static void
slack_of(char *buf, size_t size, double ends_at, int64_t deadline_ms)
{
	cmd_slack(deadline_ms, ends_at < 0 ? -1 : (int64_t)((wall_s() +
	    ends_at - mono_s()) * 1000), buf, size);
}

/* "in 12s", "in 3m05s" or "any moment", for an expected end. */
static void
ends_in(char *buf, size_t size, double ends_at)
{
	double	left = ends_at - mono_s();

	if (left < 0.5)
		snprintf(buf, size, "any moment");
	else if (left < 60)
		snprintf(buf, size, "in %.0fs", left);
	else
		snprintf(buf, size, "in %dm%02ds", (int)left / 60,
		    (int)left % 60);
}

/* What a row of the display shows: one task, or an array's tasks. */
struct row {
	char	 label[NAME_MAXLEN + 32];
	int	 percent;
	char	 state[32];
	char	 node[NAME_MAXLEN + 1];
	int	 final;		/* every task of it ended */
	int	 ok;		/* how many Terminated */
	double	 ends_at;	/* the last expected end; -1 unknown */
	int64_t	 deadline_ms;	/* the latest of its tasks'; 0 none */
	double	 waited, makespan;	/* the longest, once ended */
	int	 count, ended;
	char	 reason[REASON_MAXLEN + 1];	/* a lone task's */
	char	 ckpt[sizeof ((struct wire_progress *)0)->ckpt_at + 48];
};

/* A task's label: its workflow id, else its name; name[value] in an
 * array. */
static void
label_of(const struct watched *w, char *buf, size_t size)
{
	const char	*base = w->label[0] != '\0' ? w->label : w->exec;

	if (w->p.array[0] != '\0')
		snprintf(buf, size, "%s[%d]", base, w->p.array_index);
	else
		snprintf(buf, size, "%s", base);
}

/* The row led by v[i]: the task, or its whole array. */
static void
row_of(const struct watched *v, int i, struct row *r)
{
	const struct watched	*w;
	int			 lo = v[i].p.array_index, hi = lo, k, sum = 0;
	int			 running = 0, unknown = 0;

	memset(r, 0, sizeof *r);
	r->ends_at = -1;
	r->waited = r->makespan = -1;
	for (k = i; k >= 0; k = v[k].next) {
		w = &v[k];
		r->count++;
		if (w->deadline_ms > r->deadline_ms)
			r->deadline_ms = w->deadline_ms;
		sum += w->p.percent;
		if (w->p.array_index < lo)
			lo = w->p.array_index;
		if (w->p.array_index > hi)
			hi = w->p.array_index;
		if (is_final(w->p.state)) {
			r->ended++;
			r->ok += strcmp(w->p.state, "Terminated") == 0;
			if (w->p.waited > r->waited)
				r->waited = w->p.waited;
			if (w->p.makespan > r->makespan)
				r->makespan = w->p.makespan;
			continue;
		}
		running += strcmp(w->p.state, "Running") == 0 ||
		    strcmp(w->p.state, "Suspended") == 0;
		if (w->ends_at < 0)
			unknown++;
		else if (w->ends_at > r->ends_at)
			r->ends_at = w->ends_at;
	}
	r->final = r->ended == r->count;
	if (unknown > 0)
		r->ends_at = -1;
	r->percent = sum / r->count;
	if (r->count == 1) {
		snprintf(r->reason, sizeof r->reason, "%s", v[i].p.reason);
		/* Its newest checkpoint: how old, where it is kept. */
		if (v[i].p.ckpt_seq > 0 && !r->final)
			snprintf(r->ckpt, sizeof r->ckpt, " checkpoint %.0fs "
			    "old on %s", wall_s() - v[i].p.ckpt_made_ms / 1e3,
			    v[i].p.ckpt_at);
		label_of(&v[i], r->label, sizeof r->label);
		snprintf(r->state, sizeof r->state, "%s", v[i].p.state);
		snprintf(r->node, sizeof r->node, "%s", v[i].p.node[0] !=
		    '\0' ? v[i].p.node : "-");
		return;
	}
	snprintf(r->label, sizeof r->label, "%s[%d-%d]", v[i].label[0] !=
	    '\0' ? v[i].label : v[i].exec, lo, hi);
	snprintf(r->state, sizeof r->state, "%d/%d ended", r->ended,
	    r->count);
	snprintf(r->node, sizeof r->node, "%d running", running);
}

/* Columns of the terminal (80 if it does not say). */
static int
screen_cols(FILE *out)
{
	struct winsize	ws;

	if (ioctl(fileno(out), TIOCGWINSZ, &ws) == -1 || ws.ws_col < 20)
		return 80;
	return ws.ws_col < LINE_MAX_COLS ? ws.ws_col : LINE_MAX_COLS - 1;
}

/* Print text cut to cols - 1 columns (never wrapped: the redraw moves
 * up by lines), not inside a UTF-8 character. */
static void
put_fitted(FILE *out, const char *text, int cols)
{
	size_t	len = strlen(text), max = (size_t)cols - 1;

	if (len > max) {
		len = max;
		while (len > 0 && ((unsigned char)text[len] & 0xc0) == 0x80)
			len--;
	}
	fprintf(out, "\r\033[K%.*s\n", (int)len, text);
}

/* A row in cols columns: the bar narrows first, then the label. */
static void
draw_line(FILE *out, const struct row *r, int width, int cols)
{
	char	bar[BAR_WIDTH + 1], ends[REASON_MAXLEN + 1] = "", spare[48];
	char	text[LINE_MAX_COLS + REASON_MAXLEN + NAME_MAXLEN * 3];
	int	barw = BAR_WIDTH, fill, i, room;

	/* label [bar] 100% state node: 33 columns and the two widths */
	room = cols - 1 - 33 - width;
	if (room < barw)
		barw = room > BAR_MIN ? room : BAR_MIN;
	if (width > cols - 1 - 33 - barw)
		width = cols - 1 - 33 - barw > 4 ? cols - 1 - 33 - barw : 4;
	fill = r->percent * barw / 100;
	for (i = 0; i < barw; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[barw] = '\0';
	if (!r->final && r->ends_at >= 0)
		ends_in(ends, sizeof ends, r->ends_at);
	else if (strncmp(r->reason, "waiting:", 8) == 0)
		snprintf(ends, sizeof ends, "%s", r->reason);
	slack_of(spare, sizeof spare, r->final ? -1 : r->ends_at,
	    r->deadline_ms);
	snprintf(text, sizeof text, "%-*.*s [%s] %3d%% %-12s %-10s %s%s%s",
	    width, width, r->label, bar, r->percent, r->state, r->node, ends,
	    spare, r->ckpt);
	put_fitted(out, text, cols);
}

/* Lines the bars may take: the terminal's height, less room for the
 * line we come back to. */
static int
screen_lines(FILE *out)
{
	struct winsize	ws;

	if (ioctl(fileno(out), TIOCGWINSZ, &ws) == -1 || ws.ws_row < 4)
		return 1000;
	return ws.ws_row - 2;
}

/* Is the row led by v[i] over: every task of it ended? */
static int
row_final(const struct watched *v, int i)
{
	for (; i >= 0; i = v[i].next)
		if (!is_final(v[i].p.state))
			return 0;
	return 1;
}

/*
 * Redraw in place: a line per task (an array's tasks share one), then a
 * line that counts them and says when the last should end (the
 * workflow's expected end, when the tasks are one workflow).  More rows
 * than the screen holds: the unfinished ones first, in order, then the
 * latest finished -- always the same number of lines, so moving the
 * cursor back up lands on the first.
 */
static void
draw_all(FILE *out, const struct watched *v, int n, int nrows, int width,
    int again, const char *title)
{
	static int	rows;
	struct row	r;
	char		ends[64], text[LINE_MAX_COLS + 256];
	double		last = -1;
	int		i, k, shown = 0, running = 0, waiting = 0, ended = 0;
	int		unknown = 0, cols = screen_cols(out);

	if (again && resized) {
		/* Lines drawn at the old width may have wrapped or moved:
		 * start again from a clear screen. */
		fprintf(out, "\033[H\033[2J");
		again = 0;
	}
	resized = 0;
	if (!again)
		rows = nrows <= screen_lines(out) - 1 ? nrows :
		    screen_lines(out) - 1;
	else
		fprintf(out, "\033[%dA", rows + 1);
	for (i = 0; i < n && (nrows <= rows || shown < rows); i++)
		if (v[i].lead == i && (nrows <= rows || !row_final(v, i))) {
			row_of(v, i, &r);
			draw_line(out, &r, width, cols);
			shown++;
		}
	if (nrows > rows) {
		/* The room left: the latest finished, in their order. */
		for (i = n - 1, k = rows - shown; i >= 0 && k > 0; i--)
			k -= v[i].lead == i && row_final(v, i);
		for (i = i + 1; i < n && shown < rows; i++)
			if (v[i].lead == i && row_final(v, i)) {
				row_of(v, i, &r);
				draw_line(out, &r, width, cols);
				shown++;
			}
	}
	for (i = 0; i < n; i++) {
		if (is_final(v[i].p.state)) {
			ended++;
			continue;
		}
		if (strcmp(v[i].p.state, "Running") == 0 ||
		    strcmp(v[i].p.state, "Suspended") == 0)
			running++;
		else
			waiting++;
		if (v[i].ends_at < 0)
			unknown++;
		else if (v[i].ends_at > last)
			last = v[i].ends_at;
	}
	if (ended == n)
		ends[0] = '\0';
	else if (unknown == 0 && last >= 0) {
		snprintf(ends, sizeof ends, "; all done ");
		ends_in(ends + strlen(ends), sizeof ends - strlen(ends), last);
	} else
		snprintf(ends, sizeof ends, "; no estimate yet");
	snprintf(text, sizeof text, "%s%s%d task%s: %d running, %d waiting, "
	    "%d ended%s", title, title[0] != '\0' ? ": " : "", n, n == 1 ? "" :
	    "s", running, waiting, ended, ends);
	put_fitted(out, text, cols);
	for (; shown < rows; shown++)
		fprintf(out, "\r\033[K\n");
	fflush(out);
}

static void
plain_line(FILE *out, struct watched *w)
{
	char		stamp[16], label[NAME_MAXLEN + 32], spare[48];
	char		text[NAME_MAXLEN * 3 + REASON_MAXLEN + 96];
	time_t		now = time(NULL);
	struct tm	tm;
	uint64_t	h = 1469598103934665603ULL;
	const char	*p;

	label_of(w, label, sizeof label);
	snprintf(text, sizeof text, "%s %s %s %d%% %s%s%s", label, w->p.uuid,
	    w->p.state, w->p.percent, w->p.node[0] != '\0' ? w->p.node : "-",
	    strncmp(w->p.reason, "waiting:", 8) == 0 ? " " : "",
	    strncmp(w->p.reason, "waiting:", 8) == 0 ? w->p.reason : "");
	for (p = text; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	if (h == w->shown)
		return;
	w->shown = h;
	/* What the expected end leaves of a deadline, at each change
	 * (only a change prints a line). */
	slack_of(spare, sizeof spare, is_final(w->p.state) ? -1 : w->ends_at,
	    w->deadline_ms);
	localtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
	fprintf(out, "%s %s%s\n", stamp, text, spare);
	fflush(out);
}

/* A row per task, and one per array (its uuid, how its tasks ended). */
static void
summary(FILE *out, const struct watched *v, int n, int width,
    const char *title)
{
	double		longest = 0;
	struct row	r;
	int		i, k, ok = 0;

	fprintf(out, "\n%-*s %-36s %-10s %-10s %8s %9s\n", width, "TASK",
	    "UUID", "STATE", "NODE", "WAITED", "MAKESPAN");
	for (i = 0; i < n; i++)
		ok += strcmp(v[i].p.state, "Terminated") == 0;
	for (i = 0; i < n; i++) {
		const struct watched *w = &v[i];
		char waited[32] = "-", makespan[32] = "-", state[32];
		if (w->lead != i)
			continue;
		row_of(v, i, &r);
		if (r.waited >= 0)
			snprintf(waited, sizeof waited, "%.3fs", r.waited);
		if (r.makespan >= 0) {
			snprintf(makespan, sizeof makespan, "%.3fs",
			    r.makespan);
			if (r.makespan > longest)
				longest = r.makespan;
		}
		if (r.count > 1)
			snprintf(state, sizeof state, "%d/%d ok", r.ok,
			    r.count);
		fprintf(out, "%-*s %-36s %-10s %-10s %8s %9s%s%s\n", width,
		    r.label, r.count > 1 ? w->p.array : w->p.uuid,
		    r.count > 1 ? state : w->p.state, r.count > 1 ? "-" :
		    r.node, waited, makespan, r.count == 1 &&
		    w->p.reason[0] != '\0' ? "  " : "", r.count == 1 ?
		    w->p.reason : "");
		/* An array's tasks that did not terminate, each with why. */
		for (k = r.count > 1 ? i : -1; k >= 0; k = v[k].next) {
			char label[NAME_MAXLEN + 32];
			if (strcmp(v[k].p.state, "Terminated") == 0)
				continue;
			label_of(&v[k], label, sizeof label);
			fprintf(out, "  %-*s %-36s %-10s %-10s %s\n", width - 2,
			    label, v[k].p.uuid, v[k].p.state,
			    v[k].p.node[0] != '\0' ? v[k].p.node : "-",
			    v[k].p.reason);
		}
	}
	fprintf(out, "%s%s%d of %d terminated; makespan %.3fs\n", title,
	    title[0] != '\0' ? ": " : "", ok, n, longest);
	fflush(out);
}

struct by_array {
	const char	*array;
	int		 i;
};

static int
by_array_cmp(const void *a, const void *b)
{
	const struct by_array	*x = a, *y = b;
	int			 c = strcmp(x->array, y->array);

	return c != 0 ? c : x->i - y->i;
}

/* Link each array's tasks behind its first; the rows to draw. */
static int
group_arrays(struct watched *v, int n)
{
	struct by_array	*s = calloc(n > 0 ? n : 1, sizeof *s);
	int		 i, rows = 0;

	for (i = 0; i < n; i++) {
		v[i].lead = i;
		v[i].next = -1;
	}
	if (s == NULL)
		return n;	/* a row each, then */
	for (i = 0; i < n; i++) {
		s[i].array = v[i].p.array;
		s[i].i = i;
	}
	qsort(s, n, sizeof *s, by_array_cmp);
	for (i = 1; i < n; i++)
		if (s[i].array[0] != '\0' &&
		    strcmp(s[i].array, s[i - 1].array) == 0) {
			v[s[i].i].lead = v[s[i - 1].i].lead;
			v[s[i - 1].i].next = s[i].i;
		}
	for (i = 0; i < n; i++)
		rows += v[i].lead == i;
	free(s);
	return rows;
}

/* A change as JSON: the task, its label, and what its PROGRESS line
 * said (times in s; null where not said). */
static void
json_line(FILE *out, const struct watched *w)
{
	char	 label[NAME_MAXLEN + 32], *text;
	json_t	*o;

	label_of(w, label, sizeof label);
	o = json_pack("{s:s, s:s, s:s, s:s, s:i, s:o, s:i, s:o, s:o, s:o, "
	    "s:o, s:o, s:o}", "uuid", w->p.uuid, "name", w->exec, "label", label,
	    "state", w->p.state, "progress", w->p.percent, "node",
	    w->p.node[0] != '\0' ? json_string(w->p.node) : json_null(),
	    "attempt", w->p.attempt, "waited_s", w->p.waited >= 0 ?
	    json_real(w->p.waited) : json_null(), "makespan_s",
	    w->p.makespan >= 0 ? json_real(w->p.makespan) : json_null(),
	    "ends_in_s", w->p.eta >= 0 ? json_real(w->p.eta) : json_null(),
	    "reason", w->p.reason[0] != '\0' ? json_string(w->p.reason) :
	    json_null(), "checkpoint", w->p.ckpt_seq > 0 ? json_pack(
	    "{s:I, s:I, s:s}", "seq", (json_int_t)w->p.ckpt_seq, "made_ms",
	    (json_int_t)w->p.ckpt_made_ms, "kept_on", w->p.ckpt_at) :
	    json_null(), "deadline_ms", w->deadline_ms > 0 ?
	    json_integer(w->deadline_ms) : json_null());
	if (o != NULL && (text = json_dumps(o, JSON_COMPACT |
	    JSON_REAL_PRECISION(6))) != NULL) {
		fprintf(out, "%s\n", text);
		fflush(out);
		free(text);
	}
	json_decref(o);
}

int
watch_run(struct conn *c, struct watched *v, int n, FILE *out, int mode,
    const char *title)
{
	int		tty = mode == WATCH_BARS;
	char		line[CLIENT_LINE_MAX + 1], err[512], auto_title[128];
	struct row	r;
	struct sigaction sa;
	size_t		off;
	int		i, k, open, width = 4, rc, drawn = 0, nrows;

	nrows = group_arrays(v, n);
	for (i = 0; i < n; i++) {
		v[i].p.waited = v[i].p.makespan = -1;
		v[i].ends_at = -1;
		snprintf(v[i].p.state, sizeof v[i].p.state, "?");
	}
	for (i = 0; i < n; i++) {
		if (v[i].lead != i)
			continue;
		row_of(v, i, &r);
		if ((k = (int)strlen(r.label)) > width)
			width = k;
	}
	/* One array alone says so; several tasks are just tasks. */
	if (title == NULL && nrows == 1 && n > 1 && v[0].p.array[0] != '\0') {
		row_of(v, 0, &r);
		snprintf(auto_title, sizeof auto_title, "array %s", r.label);
		title = auto_title;
	} else if (title == NULL)
		title = "";
	if (tty) {
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_winch;	/* no SA_RESTART: wake us */
		sigemptyset(&sa.sa_mask);
		sigaction(SIGWINCH, &sa, NULL);
		c->interrupt = &resized;
	}
	/* Subscribe in chunks; each answers SUBSCRIBED, then PROGRESS. */
	for (i = 0; i < n; i += SUBSCRIBE_CHUNK) {
		off = snprintf(line, sizeof line, "SUBSCRIBE");
		for (k = i; k < n && k < i + SUBSCRIBE_CHUNK; k++)
			off += snprintf(line + off, sizeof line - off, " %s",
			    v[k].p.uuid);
		snprintf(line + off, sizeof line - off, "\n");
		if (conn_send(c, line, err, sizeof err) == -1) {
			fprintf(stderr, "volery: %s\n", err);
			return 1;
		}
	}
	for (;;) {
		for (i = 0, open = 0; i < n; i++)
			open += !is_final(v[i].p.state);
		if (open == 0)
			break;
		rc = conn_line(c, line, sizeof line, -1, err, sizeof err);
		if (rc == 0 && resized && drawn) {
			draw_all(out, v, n, nrows, width, drawn, title);
			continue;
		}
		if (rc <= 0) {
			if (tty && drawn)
				fprintf(out, "\n");
			fprintf(stderr, "volery: %s\n", err);
			return 1;
		}
		if (strncmp(line, "ERROR", 5) == 0) {
			fprintf(stderr, "volery: %s\n", line[5] == ' ' ?
			    line + 6 : line);
			return 1;
		}
		if ((k = watch_progress(v, n, line)) < 0)
			continue;
		if (tty) {
			draw_all(out, v, n, nrows, width, drawn, title);
			drawn = 1;
		} else if (mode == WATCH_JSON)
			json_line(out, &v[k]);
		else
			plain_line(out, &v[k]);
	}
	signal(SIGWINCH, SIG_DFL);
	c->interrupt = NULL;
	if (mode != WATCH_JSON)
		summary(out, v, n, width, title);
	for (i = 0; i < n; i++)
		if (strcmp(v[i].p.state, "Terminated") != 0)
			return 1;
	return 0;
}
