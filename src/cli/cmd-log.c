/*
 * cmd-log.c -- `volery log`: search a log file here, or a node's log
 * through LOG (-H, or no FILE).  -f follows a local file like tail -F
 * (when logrotate moves it away or truncates it, the new file is read
 * from its start), or a node's log by asking again every second.
 */
#include <sys/inotify.h>
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lex.h"
#include <jansson.h>

#include "cmd.h"
#include "conn.h"
#include "logsearch.h"
#include "taskjson.h"
#include "when.h"

/* --json: each line a JSON object of its own (JSON Lines). */
static int	as_json;

/* A log line as it is, or as {"time", "level", "message"}. */
static void
emit(const char *line, size_t len)
{
	json_t	*o;
	char	*text;

	if (!as_json) {
		fwrite(line, 1, len, stdout);
		putchar('\n');
		return;
	}
	o = log_line_json(line, len);
	if (o != NULL && (text = json_dumps(o, JSON_COMPACT)) != NULL) {
		puts(text);
		free(text);
	}
	json_decref(o);
}

static int
print_line(const char *line, size_t len, void *arg)
{
	(void)arg;
	emit(line, len);
	return 0;
}

static void
print_reply_line(const char *line, void *arg)
{
	(void)arg;
	emit(line, strlen(line));
}

/* The last bytes read of f, to notice a file rewritten in place. */
struct mark {
	off_t	pos;
	char	bytes[64];
	size_t	len;
};

/* What was just read: the mark keeps its last bytes, as read (a look
 * at the file now could already see it rewritten). */
static void
mark_feed(struct mark *m, const char *data, size_t len)
{
	size_t	keep;

	if (len >= sizeof m->bytes) {
		memcpy(m->bytes, data + len - sizeof m->bytes,
		    sizeof m->bytes);
		m->len = sizeof m->bytes;
		return;
	}
	keep = m->len + len > sizeof m->bytes ? sizeof m->bytes - len :
	    m->len;
	memmove(m->bytes, m->bytes + m->len - keep, keep);
	memcpy(m->bytes + keep, data, len);
	m->len = keep + len;
}

/* Where the mark starts: what f holds before its place. */
static void
mark_take(FILE *f, struct mark *m)
{
	ssize_t	n;

	m->pos = ftello(f);
	m->len = m->pos < (off_t)sizeof m->bytes ? (size_t)m->pos :
	    sizeof m->bytes;
	n = pread(fileno(f), m->bytes, m->len, m->pos - m->len);
	m->len = n > 0 ? (size_t)n : 0;
}

/* Is f still the file we read, grown at most?  Not if it is shorter,
 * or the bytes before our place changed (truncated and written again
 * between two looks, as copytruncate does). */
static int
mark_holds(FILE *f, const struct mark *m, off_t size)
{
	char	now[sizeof m->bytes];

	if (size < m->pos)
		return 0;
	return m->len == 0 || (pread(fileno(f), now, m->len, m->pos -
	    m->len) == (ssize_t)m->len && memcmp(now, m->bytes, m->len) == 0);
}

/* Print the matching complete lines of f from where it is; keep a
 * partial last line in pending for the next round. */
static void
follow_read(FILE *f, struct log_search *s, char **pending, size_t *plen,
    struct mark *m)
{
	char	*line = NULL, *all;
	size_t	 cap = 0;
	ssize_t	 len;

	clearerr(f);
	while ((len = getline(&line, &cap, f)) > 0) {
		mark_feed(m, line, len);
		m->pos = ftello(f);
		if (line[len - 1] != '\n') {
			/* A line still being written: keep it for later. */
			if ((all = realloc(*pending, *plen + len)) != NULL) {
				memcpy(all + *plen, line, len);
				*pending = all;
				*plen += len;
			}
			break;
		}
		line[--len] = '\0';
		if (*plen > 0) {
			if ((all = realloc(*pending, *plen + len + 1)) ==
			    NULL)
				break;
			memcpy(all + *plen, line, len + 1);
			if (log_search_match(s, all, *plen + len))
				print_line(all, *plen + len, NULL);
			free(all);
			*pending = NULL;
			*plen = 0;
		} else if (log_search_match(s, line, len))
			print_line(line, len, NULL);
	}
	free(line);
	fflush(stdout);
}

/* Follow path until killed. */
static void __attribute__((noreturn))
follow(const char *path, FILE *f, struct log_search *s)
{
	char		 dir[PATH_MAX], *slash, *pending = NULL, ev[4096];
	struct stat	 now, open_st;
	struct mark	 mark;
	size_t		 plen = 0;
	int		 in;

	mark_take(f, &mark);	/* after the first search: f at its end */

	snprintf(dir, sizeof dir, "%s", path);
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	else
		snprintf(dir, sizeof dir, ".");
	/* Changes in the directory wake us; a second's timeout covers
	 * filesystems that do not report them. */
	in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (in != -1 && inotify_add_watch(in, dir, IN_MODIFY | IN_CREATE |
	    IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CLOSE_WRITE) == -1) {
		close(in);
		in = -1;
	}
	for (;;) {
		struct pollfd pfd = { in, POLLIN, 0 };
		if (f != NULL)
			follow_read(f, s, &pending, &plen, &mark);
		if (in != -1) {
			if (poll(&pfd, 1, 1000) > 0)
				while (read(in, ev, sizeof ev) > 0)
					;
		} else
			sleep(1);
		if (stat(path, &now) == -1)
			continue;	/* moved away, not yet recreated */
		if (f != NULL && fstat(fileno(f), &open_st) == 0 &&
		    open_st.st_ino == now.st_ino &&
		    open_st.st_dev == now.st_dev) {
			if (mark_holds(f, &mark, now.st_size))
				continue;
			/* Truncated: the same file, from its start. */
			fseeko(f, 0, SEEK_SET);
			mark.len = 0;
		} else {
			/* Rotated: the rest of the old file, then the new
			 * one from its start. */
			if (f != NULL) {
				follow_read(f, s, &pending, &plen, &mark);
				fclose(f);
			}
			f = fopen(path, "re");
			mark.len = 0;
		}
		free(pending);
		pending = NULL;
		plen = 0;
	}
}

/* The LOG request for q; since overrides q's when not NULL. */
static int
log_request(const struct log_query *q, const char *since, int nlines,
    char *req, size_t size)
{
	size_t	off;

	if (since == NULL && q->since[0] != '\0')
		since = q->since;
	off = snprintf(req, size, "LOG");
	if (q->regex != NULL) {
		if (strpbrk(q->regex, " \t") != NULL)
			return cmd_fail("a regular expression sent to a node "
			    "cannot hold blanks: write \\s or \\x20") * -1;
		off += snprintf(req + off, size - off, " -g %s", q->regex);
	}
	if (q->has_level && off < size)
		off += snprintf(req + off, size - off, " -l %s",
		    log_level_name(q->level));
	if (q->uuid != NULL && off < size)
		off += snprintf(req + off, size - off, " -t %s", q->uuid);
	/* The stamps travel as one word each. */
	if (since != NULL && off < size)
		off += snprintf(req + off, size - off, " -s %.10sT%s", since,
		    since + 11);
	if (q->until[0] != '\0' && off < size)
		off += snprintf(req + off, size - off, " -u %.10sT%s",
		    q->until, q->until + 11);
	if (nlines > 0 && off < size)
		off += snprintf(req + off, size - off, " -n %d", nlines);
	if (off >= size - 1)
		return cmd_fail("the request is longer than %d bytes",
		    CLIENT_LINE_MAX) * -1;
	return 0;
}

/*
 * Following a node's log: ask again every second for the lines since
 * the last stamp printed.  Lines of that same second come again: those
 * already shown are known by their text (not their count: after a
 * rotation the reply comes from another file).
 */
struct remote_follow {
	char	  stamp[LOG_STAMP_LEN + 1];
	char	**shown;	/* lines of that stamp already printed */
	char	 *used;		/* matched in this reply */
	int	  n, cap;
	int	  silent;	/* counting what the first reply showed */
};

static void
follow_forget(struct remote_follow *rf)
{
	int	i;

	for (i = 0; i < rf->n; i++)
		free(rf->shown[i]);
	rf->n = 0;
}

static void
follow_reply_line(const char *line, void *arg)
{
	struct remote_follow	*rf = arg;
	int			 cmp, i;

	if (strlen(line) < LOG_STAMP_LEN + 2 || line[0] != '[') {
		emit(line, strlen(line));
		return;
	}
	cmp = strncmp(line + 1, rf->stamp, LOG_STAMP_LEN);
	if (cmp < 0)
		return;
	if (cmp > 0) {
		memcpy(rf->stamp, line + 1, LOG_STAMP_LEN);
		follow_forget(rf);
		rf->silent = 0;
	}
	for (i = 0; i < rf->n; i++)
		if (!rf->used[i] && strcmp(rf->shown[i], line) == 0) {
			rf->used[i] = 1;
			return;
		}
	if (rf->n == rf->cap) {
		int cap = rf->cap > 0 ? rf->cap * 2 : 16;
		char **v = realloc(rf->shown, cap * sizeof *v);
		char *u = v != NULL ? realloc(rf->used, cap) : NULL;
		if (v != NULL)
			rf->shown = v;
		if (u == NULL)
			return;		/* out of memory: not shown */
		rf->used = u;
		rf->cap = cap;
	}
	if ((rf->shown[rf->n] = strdup(line)) == NULL)
		return;
	rf->used[rf->n++] = 1;
	if (!rf->silent)
		emit(line, strlen(line));
}

static int
remote(const char *host, const struct log_query *q, int nlines, int follow)
{
	struct remote_follow	 rf;
	struct conn		 c;
	struct tm		 tm;
	time_t			 now = time(NULL);
	char			 req[CLIENT_LINE_MAX + 1];
	int			 rc;

	if (log_request(q, NULL, nlines, req, sizeof req) == -1)
		return 2;	/* what was asked cannot be sent */
	if (cmd_connect(&c, host) == -1)
		return 1;
	memset(&rf, 0, sizeof rf);
	if (!follow) {
		rc = cmd_ask_lines(&c, req, print_reply_line, NULL);
		conn_close(&c);
		return rc == -1 ? 1 : 0;
	}
	/* The last lines, as without -f. */
	if (cmd_ask_lines(&c, req, follow_reply_line, &rf) == -1) {
		conn_close(&c);
		return 1;
	}
	fflush(stdout);
	if (rf.stamp[0] == '\0') {
		/* Nothing shown: from now on, by our clock. */
		localtime_r(&now, &tm);
		strftime(rf.stamp, sizeof rf.stamp, "%Y-%m-%d %H:%M:%S", &tm);
	} else {
		/* -n may have cut into the last second: take all its lines
		 * as shown, the older of them were not wanted anyway. */
		follow_forget(&rf);
		rf.silent = 1;
	}
	for (;;) {
		if (log_request(q, rf.stamp, 10000, req, sizeof req) == -1)
			break;
		if (rf.n > 0)
			memset(rf.used, 0, rf.n);
		if (cmd_ask_lines(&c, req, follow_reply_line, &rf) == -1)
			break;
		rf.silent = 0;
		fflush(stdout);
		sleep(1);
	}
	follow_forget(&rf);
	free(rf.shown);
	free(rf.used);
	conn_close(&c);
	return 1;
}

static int
cmd_log_exec(const struct cmd_args *a)
{
	struct log_query	 q;
	struct log_search	*s;
	const char		*host = NULL, *file = NULL;
	char			 err[512];
	int64_t			 n;
	int			 ch, k, nlines = -1, follow_it = 0, rc;
	FILE			*f;

	memset(&q, 0, sizeof q);
	for (k = 0; k < a->nuse; k++) {
		const char *arg = a->use[k].v[0];
		switch ((ch = a->use[k].flag)) {
		case 'H':
			host = arg;
			break;
		case 'g':
			q.regex = arg;
			break;
		case 'l':
			if (log_level_parse(arg, &q.level) == -1)
				return 2 * cmd_fail("-l: debug, info, normal, "
				    "warning or error");
			q.has_level = 1;
			break;
		case 't':
			if (strlen(arg) != UUID_STRLEN)
				return 2 * cmd_fail("-t: not a uuid: %.40s",
				    arg);
			q.uuid = arg;
			break;
		case 'n':
			if (lex_int(arg, 1, 10000, &n) == -1)
				return 2 * cmd_fail("-n: 1 to 10000 lines");
			nlines = (int)n;
			break;
		case 'f':
			follow_it = 1;
			break;
		case 'j':
			as_json = 1;
			break;
		case 'S':
		case 'U':
			if (log_time_parse(arg, time(NULL), ch == 'U',
			    ch == 'S' ? q.since : q.until) == -1) {
				cmd_fail("%s: '%s' is not a time: "
				    WHEN_FORMS, ch == 'S' ? "--since" :
				    "--until", arg);
				return 2;
			}
			break;
		}
	}
	file = a->noperands == 1 ? a->operands[0] : NULL;
	/* Check the regex here too: its error names the offset. */
	if ((s = log_search_new(&q, err, sizeof err)) == NULL)
		return cmd_fail("%s", err);
	if (file == NULL || host != NULL) {
		log_search_free(s);
		if (file != NULL)
			return 2 * cmd_fail("give a FILE or -H, not both");
		if (nlines < 0 && follow_it)
			nlines = 10;
		return remote(host, &q, nlines, follow_it);
	}
	if ((f = fopen(file, "re")) == NULL) {
		log_search_free(s);
		return cmd_fail("%s: %s", file, strerror(errno));
	}
	if (nlines < 0)
		nlines = follow_it ? 10 : 0;
	rc = log_search_file(s, f, nlines, print_line, NULL);
	fflush(stdout);
	if (log_search_gave_up(s) > 0)
		fprintf(stderr, "volery: the expression gave up on %zu lines "
		    "(too costly: PCRE2 match limit)\n", log_search_gave_up(s));
	if (rc == 0 && follow_it)
		follow(file, f, s);
	fclose(f);
	log_search_free(s);
	return rc == -1 ? cmd_fail("%s: %s", file, strerror(errno)) : 0;
}

const struct cmd_entry cmd_log_entry = {
	"log", "search a log: a local FILE, or a node's (-H) through LOG; -l "
	"shows that severity and worse; -f follows it, across log rotation; "
	"--json: a JSON object per line",
	{ CMD_OPT_HOST, { 'g', "regex", 0, 1, 0, "REGEX" },
	  { 'l', "level", 0, 1, 0, "LEVEL" }, { 't', "task", 0, 1, 0, "UUID" },
	  { 'S', "since", 1, 1, 0, "T" }, { 'U', "until", 1, 1, 0, "T" },
	  { 'n', "lines", 0, 1, 0, "N" }, { 'f', "follow", 0, 0, 0, NULL },
	  { 'j', "json", 1, 0, 0, NULL } },
	0, 1, "[FILE]", 0,
	cmd_log_exec, 0,
};
