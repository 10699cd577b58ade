/*
 * taskcodec.c -- a task as one line of "key=value" fields, for the
 * journal (and the peers' ENQUEUE).  Values are %-escaped so that a
 * record never holds a blank, newline, ',', ':' or '='.
 *
 *   v=1 id=<uuid> exec=<name> prio=low aged=0 st=Ready sb=<node> cl=<addr>
 *   on=<node> sub=<ms> rdy=<ms> stt=<ms> end=<ms> pg=<0-100> att=<n>
 *   fail=<n> ver=<n> [susp=1] path=<s> par=<s> rsn=<s> in=<uuid>:<nth>:<dataset|->,...
 *   out=<id>,...
 *
 * Empty optional fields are left out.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "wire.h"

#define CODEC_VERSION 1

struct out {
	char	*buf;
	size_t	 len, off;
	int	 overflow;
};

static void
put(struct out *o, const char *s, size_t n)
{
	if (o->off + n >= o->len) {
		o->overflow = 1;
		return;
	}
	memcpy(o->buf + o->off, s, n);
	o->off += n;
}

static int
must_escape(unsigned char c)
{
	return c <= ' ' || c >= 0x7f || c == '%' || c == ',' || c == ':' ||
	    c == '=';
}

static void
put_escaped(struct out *o, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s != '\0'; s++) {
		unsigned char c = *s;
		if (must_escape(c)) {
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };
			put(o, e, 3);
		} else
			put(o, (const char *)&c, 1);
	}
}

static void
put_field(struct out *o, const char *key, const char *value)
{
	if (value == NULL || *value == '\0')
		return;
	if (o->off > 0)
		put(o, " ", 1);
	put(o, key, strlen(key));
	put(o, "=", 1);
	put_escaped(o, value);
}

static void
put_num(struct out *o, const char *key, int64_t v)
{
	char	num[32];

	snprintf(num, sizeof num, "%" PRId64, v);
	put_field(o, key, num);
}

int
wire_task_encode(const struct task *t, char *buf, size_t len)
{
	struct out	o = { buf, len, 0, 0 };
	int		i;

	put_num(&o, "v", CODEC_VERSION);
	put_field(&o, "id", t->uuid);
	put_field(&o, "exec", t->exec);
	put_field(&o, "prio", task_prio_name(t->prio));
	put_num(&o, "aged", t->aged);
	put_field(&o, "st", task_state_name(t->state));
	put_field(&o, "sb", t->scheduled_by);
	put_field(&o, "cl", t->client);
	put_field(&o, "on", t->running_on);
	put_num(&o, "sub", t->submit_ms);
	put_num(&o, "rdy", t->ready_ms);
	put_num(&o, "stt", t->start_ms);
	put_num(&o, "end", t->end_ms);
	put_num(&o, "pg", t->progress);
	put_num(&o, "att", t->attempts);
	put_num(&o, "fail", t->failures);
	put_num(&o, "ver", (int64_t)t->ver);
	if (t->suspended && t->state == TASK_RUNNING)
		put_num(&o, "susp", 1);
	put_field(&o, "path", t->path);
	put_field(&o, "par", t->params);
	put_field(&o, "rsn", t->reason);
	if (t->ninputs > 0) {
		put(&o, " in=", 4);
		for (i = 0; i < t->ninputs; i++) {
			char nth[16];
			const struct task_input *in = &t->inputs[i];
			if (i > 0)
				put(&o, ",", 1);
			put(&o, in->from, strlen(in->from));
			snprintf(nth, sizeof nth, ":%d:", in->nth);
			put(&o, nth, strlen(nth));
			if (in->dataset != NULL)
				put_escaped(&o, in->dataset);
			else
				put(&o, "-", 1);
		}
	}
	if (t->noutputs > 0) {
		put(&o, " out=", 5);
		for (i = 0; i < t->noutputs; i++) {
			if (i > 0)
				put(&o, ",", 1);
			put_escaped(&o, t->outputs[i]);
		}
	}
	if (o.overflow)
		return -1;
	buf[o.off] = '\0';
	return (int)o.off;
}

/* Undo %-escapes in place; -1 on a bad escape or a NUL. */
static int
unescape(char *s)
{
	char	*w = s;

	for (; *s != '\0'; s++) {
		if (*s == '%') {
			int hi, lo;
			if (!isxdigit((unsigned char)s[1]) ||
			    !isxdigit((unsigned char)s[2]))
				return -1;
			hi = isdigit((unsigned char)s[1]) ? s[1] - '0' :
			    (tolower((unsigned char)s[1]) - 'a' + 10);
			lo = isdigit((unsigned char)s[2]) ? s[2] - '0' :
			    (tolower((unsigned char)s[2]) - 'a' + 10);
			if (hi == 0 && lo == 0)
				return -1;
			*w++ = (char)(hi << 4 | lo);
			s += 2;
		} else
			*w++ = *s;
	}
	*w = '\0';
	return 0;
}

static int
copy_name(char *dst, size_t size, const char *s)
{
	if (strlen(s) >= size)
		return -1;
	strcpy(dst, s);
	return 0;
}

/* Split s at commas into at most max pieces; -1 if more. */
static int
split_list(char *s, char **v, int max)
{
	int	n = 0;

	for (;;) {
		if (n == max)
			return -1;
		v[n++] = s;
		if ((s = strchr(s, ',')) == NULL)
			return n;
		*s++ = '\0';
	}
}

static int
decode_inputs(struct task **tp, const char *uuid, const char *exec, char *s)
{
	char		*v[TASK_INPUTS_MAX];
	struct task	*t;
	int		 n, i;

	if ((n = split_list(s, v, TASK_INPUTS_MAX)) == -1)
		return -1;
	if ((t = task_new(uuid, exec, n)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		char *nth = strchr(v[i], ':'), *ds;
		int64_t k;
		if (nth == NULL || (ds = strchr(nth + 1, ':')) == NULL)
			goto bad;
		*nth++ = '\0';
		*ds++ = '\0';
		if (!task_uuid_valid(v[i]) ||
		    lex_int(nth, 1, TASK_OUTPUTS_MAX, &k) == -1)
			goto bad;
		strcpy(t->inputs[i].from, v[i]);
		t->inputs[i].nth = (int)k;
		if (strcmp(ds, "-") != 0) {
			if (unescape(ds) == -1 ||
			    !task_token_valid(ds, DATASET_MAXLEN) ||
			    task_set_string(&t->inputs[i].dataset, ds) == -1)
				goto bad;
		}
	}
	*tp = t;
	return 0;
bad:
	task_free(t);
	return -1;
}

#define FAIL(msg) do { snprintf(err, errlen, "%s", msg); goto fail; } while (0)

struct task *
wire_task_decode(const char *line, size_t len, char *err, size_t errlen)
{
	struct task	*t = NULL;
	char		*copy, *p, *field, *in = NULL, *outs = NULL;
	char		 uuid[UUID_STRLEN + 1] = "", exec[NAME_MAXLEN + 1] = "";
	struct task	 f;		/* scalar fields, before t exists */
	char		*path = NULL, *par = NULL;
	int64_t		 num, version = 0;

	if (len > RECORD_LINE_MAX || memchr(line, '\0', len) != NULL) {
		snprintf(err, errlen, "record too long or holds a NUL byte");
		return NULL;
	}
	if ((copy = malloc(len + 1)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memcpy(copy, line, len);
	copy[len] = '\0';
	memset(&f, 0, sizeof f);
	f.ready_ms = f.start_ms = f.end_ms = -1;

	for (p = copy; (field = lex_word(&p, LEX_STRICT)) != NULL;) {
		char *val = strchr(field, '=');
		if (*field == '\0')
			FAIL("empty field");
		if (val == NULL)
			FAIL("field without '='");
		*val++ = '\0';
		if (strcmp(field, "in") == 0) {
			in = val;
			continue;
		}
		if (strcmp(field, "out") == 0) {
			outs = val;
			continue;
		}
		if (unescape(val) == -1)
			FAIL("bad %-escape");
		if (strcmp(field, "v") == 0) {
			if (lex_int(val, 1, 1000, &version) == -1)
				FAIL("bad version");
		} else if (strcmp(field, "id") == 0) {
			if (!task_uuid_valid(val) ||
			    copy_name(uuid, sizeof uuid, val) == -1)
				FAIL("bad uuid");
		} else if (strcmp(field, "exec") == 0) {
			if (!task_name_valid(val) ||
			    copy_name(exec, sizeof exec, val) == -1)
				FAIL("bad exec name");
		} else if (strcmp(field, "prio") == 0) {
			if (task_prio_parse(val, &f.prio) == -1)
				FAIL("bad priority");
		} else if (strcmp(field, "aged") == 0) {
			if (lex_int(val, 0, 1, &num) == -1)
				FAIL("bad aged flag");
			f.aged = (int)num;
		} else if (strcmp(field, "st") == 0) {
			if (task_state_parse(val, &f.state) == -1)
				FAIL("bad state");
		} else if (strcmp(field, "sb") == 0) {
			if (copy_name(f.scheduled_by, sizeof f.scheduled_by,
			    val) == -1)
				FAIL("bad scheduled-by");
		} else if (strcmp(field, "cl") == 0) {
			if (copy_name(f.client, sizeof f.client, val) == -1)
				FAIL("bad client");
		} else if (strcmp(field, "on") == 0) {
			if (copy_name(f.running_on, sizeof f.running_on,
			    val) == -1)
				FAIL("bad running-on");
		} else if (strcmp(field, "sub") == 0) {
			if (lex_int(val, 0, INT64_MAX, &f.submit_ms) == -1)
				FAIL("bad submit time");
		} else if (strcmp(field, "rdy") == 0) {
			if (lex_int(val, -1, INT64_MAX, &f.ready_ms) == -1)
				FAIL("bad ready time");
		} else if (strcmp(field, "stt") == 0) {
			if (lex_int(val, -1, INT64_MAX, &f.start_ms) == -1)
				FAIL("bad start time");
		} else if (strcmp(field, "end") == 0) {
			if (lex_int(val, -1, INT64_MAX, &f.end_ms) == -1)
				FAIL("bad end time");
		} else if (strcmp(field, "pg") == 0) {
			if (lex_int(val, 0, 100, &num) == -1)
				FAIL("bad progress");
			f.progress = (int)num;
		} else if (strcmp(field, "att") == 0) {
			if (lex_int(val, 0, 1000000, &num) == -1)
				FAIL("bad attempts");
			f.attempts = (int)num;
		} else if (strcmp(field, "fail") == 0) {
			if (lex_int(val, 0, 1000000, &num) == -1)
				FAIL("bad failures");
			f.failures = (int)num;
		} else if (strcmp(field, "ver") == 0) {
			if (lex_int(val, 0, INT64_MAX, &num) == -1)
				FAIL("bad version counter");
			f.ver = (uint64_t)num;
		} else if (strcmp(field, "susp") == 0) {
			if (lex_int(val, 0, 1, &num) == -1)
				FAIL("bad suspended flag");
			f.suspended = (int)num;
		} else if (strcmp(field, "path") == 0) {
			if (strlen(val) > PATH_MAXLEN)
				FAIL("path too long");
			path = val;
		} else if (strcmp(field, "par") == 0) {
			if (strlen(val) > PATH_MAXLEN)
				FAIL("params path too long");
			par = val;
		} else if (strcmp(field, "rsn") == 0) {
			if (copy_name(f.reason, sizeof f.reason, val) == -1)
				FAIL("reason too long");
		} else
			FAIL("unknown field");
	}
	if (version != CODEC_VERSION)
		FAIL("missing or unknown record version");
	if (uuid[0] == '\0' || exec[0] == '\0')
		FAIL("record lacks id or exec");
	if (in != NULL) {
		if (decode_inputs(&t, uuid, exec, in) == -1)
			FAIL("bad inputs");
	} else if ((t = task_new(uuid, exec, 0)) == NULL)
		FAIL("out of memory");
	if (outs != NULL) {
		char *v[TASK_OUTPUTS_MAX];
		int n = split_list(outs, v, TASK_OUTPUTS_MAX), i;
		if (n == -1)
			FAIL("too many outputs");
		for (i = 0; i < n; i++)
			if (unescape(v[i]) == -1 ||
			    !task_token_valid(v[i], DATASET_MAXLEN))
				FAIL("bad output id");
		if (task_set_outputs(t, v, n) == -1)
			FAIL("out of memory");
	}
	t->prio = f.prio;
	t->aged = f.aged;
	t->state = f.state;
	memcpy(t->scheduled_by, f.scheduled_by, sizeof t->scheduled_by);
	memcpy(t->client, f.client, sizeof t->client);
	memcpy(t->running_on, f.running_on, sizeof t->running_on);
	t->submit_ms = f.submit_ms;
	t->ready_ms = f.ready_ms;
	t->start_ms = f.start_ms;
	t->end_ms = f.end_ms;
	t->progress = f.progress;
	t->attempts = f.attempts;
	t->failures = f.failures;
	t->ver = f.ver;
	t->suspended = f.suspended && f.state == TASK_RUNNING;
	memcpy(t->reason, f.reason, sizeof t->reason);
	if (task_set_string(&t->path, path) == -1 ||
	    task_set_string(&t->params, par) == -1)
		FAIL("out of memory");
	free(copy);
	return t;
fail:
	task_free(t);
	free(copy);
	return NULL;
}
