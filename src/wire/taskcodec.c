/*
 * taskcodec.c -- a task as one line of "key=value" fields, for the
 * journal (and the peers' ENQUEUE).  Values are %-escaped so that a
 * record never holds a blank, newline, ',', ':' or '='.
 *
 *   v=1 id=<uuid> exec=<name> [wf=<uuid>] [arr=<uuid> aix=<n> amax=<n>]
 *   [vfy=<n> vof=<uuid> vix=<n>] prio=low aged=0 st=Ready sb=<node> cl=<addr>
 *   on=<node> sub=<ms> rdy=<ms> stt=<ms> end=<ms> pg=<0-100> att=<n>
 *   fail=<n> ver=<n> [susp=1] [rc=<cores>] [rm=<MB>] [rt=<tag>,...] path=<s>
 *   par=<s> rsn=<s> in=<uuid>:<nth>:<dataset|->,...
 *   out=<id>,...
 *
 * and a command task's (struct task_cmd) after them:
 *
 *   cmd=<word>,... [env=<NAME=value>,...] [cwd=<dir>] [so=<file>]
 *   [se=<file>] [tl=<ms>] [outs=<file:PATH|line:REGEX>,...] [sen=<NAME>,...]
 *
 * Empty optional fields are left out.
 */
#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
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

static void
put_escaped(struct out *o, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s != '\0'; s++) {
		unsigned char c = *s;
		if (lex_must_escape(c)) {
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

static int
copy_name(char *dst, size_t size, const char *s)
{
	if (strlen(s) >= size)
		return -1;
	strcpy(dst, s);
	return 0;
}

/*
 * Every scalar field of a record, in the order they are written, with
 * its range: the encoder and the decoder read this one table, so they
 * cannot disagree on a field.  in= and out= are lists, coded below.
 */
enum kind {
	K_UUID,		/* char[], a uuid */
	K_NAME,		/* char[], a node or executable name */
	K_TOKEN,	/* char[], printable, no blank or ',' (an address) */
	K_LINE,		/* char[], printable, blanks too (a reason) */
	K_INT,		/* int, in [min, max] */
	K_I64,		/* int64_t, in [min, max] */
	K_U64,		/* uint64_t, in [min, max] */
	K_PRIO,		/* enum task_prio */
	K_STATE,	/* enum task_state */
	K_PATH,		/* char *, NULL when absent, printable, at most max
			 * bytes */
	K_NAMES,	/* char *, NULL when absent, a comma list of at most
			 * max names (task_names_valid) */
	K_CKPT,		/* char *, NULL when absent, a checkpoint
			 * (taskckpt.c) */
	K_TRIES,	/* char *, NULL when absent, failed attempts
			 * (task_tries_valid) */
};

#define W_ALWAYS	0
#define W_RUNNING	1	/* only while Running, and not 0 */
#define W_NONZERO	2	/* only when not 0 */
#define W_KNOWN		3	/* only when not -1 (measured) */

static const struct field {
	const char	*key;
	enum kind	 kind;
	size_t		 off;		/* in struct task */
	size_t		 size;		/* of the member */
	int64_t		 min, max;	/* numbers; K_PATH: max length */
	int		 when;		/* W_*: when the field is written */
	const char	*what;		/* for the decoder's errors */
} fields[] = {
#define A(k, kind, f, what) \
	{ k, kind, offsetof(struct task, f), sizeof(((struct task *)0)->f), \
	  0, 0, 0, what }
#define N(k, kind, f, lo, hi, what) \
	{ k, kind, offsetof(struct task, f), sizeof(((struct task *)0)->f), \
	  lo, hi, 0, what }
	A("id", K_UUID, uuid, "bad uuid"),
	A("exec", K_NAME, exec, "bad exec name"),
	A("wf", K_UUID, workflow, "bad workflow uuid"),
	A("arr", K_UUID, array, "bad array uuid"),
	{ "aix", K_INT, offsetof(struct task, array_index),
	  sizeof(((struct task *)0)->array_index), 0, ARRAY_INDEX_MAX,
	  W_NONZERO, "bad array index" },
	{ "amax", K_INT, offsetof(struct task, array_max),
	  sizeof(((struct task *)0)->array_max), 0, ARRAY_MAX_MAX,
	  W_NONZERO, "bad array limit" },
	{ "vfy", K_INT, offsetof(struct task, verify),
	  sizeof(((struct task *)0)->verify), 0, VERIFY_MAX,
	  W_NONZERO, "bad verify count" },
	A("vof", K_UUID, replica_of, "bad replica-of uuid"),
	{ "vix", K_INT, offsetof(struct task, replica_index),
	  sizeof(((struct task *)0)->replica_index), 0,
	  TAIL_INDEX_BASE + TAIL_MAX - 1,
	  W_NONZERO, "bad replica index" },
	N("prio", K_PRIO, prio, 0, 0, "bad priority"),
	N("aged", K_INT, aged, 0, 1, "bad aged flag"),
	N("st", K_STATE, state, 0, 0, "bad state"),
	A("sb", K_NAME, scheduled_by, "bad scheduled-by"),
	A("cl", K_TOKEN, client, "bad client"),
	A("on", K_NAME, running_on, "bad running-on"),
	N("sub", K_I64, submit_ms, 0, INT64_MAX, "bad submit time"),
	N("rdy", K_I64, ready_ms, -1, INT64_MAX, "bad ready time"),
	N("stt", K_I64, start_ms, -1, INT64_MAX, "bad start time"),
	N("end", K_I64, end_ms, -1, INT64_MAX, "bad end time"),
	N("pg", K_INT, progress, 0, 100, "bad progress"),
	N("att", K_INT, attempts, 0, 1000000, "bad attempts"),
	N("fail", K_INT, failures, 0, 1000000, "bad failures"),
	N("ver", K_U64, ver, 0, COUNTER_MAX, "bad version counter"),
	{ "susp", K_INT, offsetof(struct task, suspended),
	  sizeof(((struct task *)0)->suspended), 0, 1, W_RUNNING,
	  "bad suspended flag" },
	{ "bgn", K_I64, offsetof(struct task, begin_ms),
	  sizeof(((struct task *)0)->begin_ms), 0, INT64_MAX, W_NONZERO,
	  "bad begin time" },
	{ "dln", K_I64, offsetof(struct task, deadline_ms),
	  sizeof(((struct task *)0)->deadline_ms), 0, INT64_MAX, W_NONZERO,
	  "bad deadline" },
	{ "est", K_I64, offsetof(struct task, est_ms),
	  sizeof(((struct task *)0)->est_ms), 0, TASK_EST_MAX, W_NONZERO,
	  "bad run-time estimate" },
	{ "dll", K_INT, offsetof(struct task, deadline_late),
	  sizeof(((struct task *)0)->deadline_late), 0, 1, W_NONZERO,
	  "bad deadline-late flag" },
	{ "rty", K_I64, offsetof(struct task, retry_ms),
	  sizeof(((struct task *)0)->retry_ms), 0, INT64_MAX, W_NONZERO,
	  "bad retry time" },
	{ "hold", K_INT, offsetof(struct task, held),
	  sizeof(((struct task *)0)->held), 0, 1, W_NONZERO,
	  "bad held flag" },
	{ "conf", K_INT, offsetof(struct task, confirmed),
	  sizeof(((struct task *)0)->confirmed), 0, 1, W_NONZERO,
	  "bad confirmed flag" },
	{ "rnd", K_INT, offsetof(struct task, round),
	  sizeof(((struct task *)0)->round), 0, 1000000, W_NONZERO,
	  "bad round" },
	{ "rc", K_INT, offsetof(struct task, req_cores),
	  sizeof(((struct task *)0)->req_cores), 0, CORES_MAX, W_NONZERO,
	  "bad cores" },
	{ "rm", K_I64, offsetof(struct task, req_memory_mb),
	  sizeof(((struct task *)0)->req_memory_mb), 0, MEMORY_MB_MAX,
	  W_NONZERO, "bad memory" },
	N("rt", K_NAMES, req_tags, 0, CAPS_NAMES_MAX, "bad tags"),
	N("path", K_PATH, path, 0, PATH_MAXLEN, "bad path"),
	N("par", K_PATH, params, 0, PATH_MAXLEN, "bad params path"),
	A("usr", K_TOKEN, user, "bad user"),
	{ "uid", K_I64, offsetof(struct task, uid),
	  sizeof(((struct task *)0)->uid), -1, UID_MAXVAL, W_KNOWN,
	  "bad uid" },
	{ "ws", K_INT, offsetof(struct task, exit_status),
	  sizeof(((struct task *)0)->exit_status), -1, 256 + 64, W_KNOWN, "bad exit status" },
	{ "cpu", K_I64, offsetof(struct task, cpu_ms),
	  sizeof(((struct task *)0)->cpu_ms), -1, INT64_MAX, W_KNOWN,
	  "bad CPU time" },
	{ "rss", K_I64, offsetof(struct task, maxrss_kib),
	  sizeof(((struct task *)0)->maxrss_kib), -1, INT64_MAX, W_KNOWN,
	  "bad peak memory" },
	A("rsn", K_LINE, reason, "bad reason"),
	N("sig", K_PATH, sig, 0, 86, "bad origin signature"),
	A("eby", K_NAME, eby, "bad author"),
	N("esg", K_PATH, esg, 0, 86, "bad author's signature"),
	N("qc", K_PATH, qc, 0, QC_TEXT_MAX, "bad certificate"),
	N("vt", K_PATH, vote, 0, QC_VOTE_TEXT_MAX, "bad vote"),
	N("dg", K_PATH, digest, 0, DIGEST_HEX, "bad digest"),
	N("try", K_TRIES, tries, 0, TRIES_TEXT_MAX, "bad failed attempts"),
	N("ck", K_CKPT, ckpt, 0, CKPT_TEXT_MAX, "bad checkpoint"),
#undef A
#undef N
};
#define NFIELDS (sizeof fields / sizeof fields[0])

#define AT(t, fd, type) ((type *)(void *)((char *)(t) + (fd)->off))

/* Is s a valid value of the text field fd?  Encoder and decoder ask. */
static int
text_valid(const struct field *fd, const char *s)
{
	size_t	max = fd->kind == K_PATH || fd->kind == K_TRIES ||
		    fd->kind == K_CKPT ?
		    (size_t)fd->max :
		    fd->kind == K_NAMES ? CAPS_TEXT_MAX : fd->size - 1;

	if (strlen(s) > max)
		return 0;
	switch (fd->kind) {
	case K_NAMES:
		return task_names_valid(s, (int)fd->max);
	case K_TRIES:
		return task_tries_valid(s);
	case K_CKPT:
		return task_ckpt_parse(s, NULL);
	case K_UUID:
		return task_uuid_valid(s);
	case K_NAME:
		return task_name_valid(s);
	case K_TOKEN:
		return task_token_valid(s, (int)max);
	default:
		return lex_printable(s);
	}
}

/* A number field's value as int64_t (all fit one). */
static int64_t
number_of(const struct task *t, const struct field *fd)
{
	switch (fd->kind) {
	case K_INT:
		return *AT(t, fd, const int);
	case K_I64:
		return *AT(t, fd, const int64_t);
	default:
		return (int64_t)*AT(t, fd, const uint64_t);
	}
}

/* Write one field of t; -1 if its value is out of the table's range. */
static int
encode_field(struct out *o, const struct task *t, const struct field *fd)
{
	const char	*s;
	int64_t		 v;

	switch (fd->kind) {
	case K_UUID:
	case K_NAME:
	case K_TOKEN:
	case K_LINE:
		s = AT(t, fd, const char);
		if (*s != '\0' && !text_valid(fd, s))
			return -1;
		put_field(o, fd->key, s);
		return 0;
	case K_PRIO:
		put_field(o, fd->key, task_prio_name(*AT(t, fd,
		    const enum task_prio)));
		return 0;
	case K_STATE:
		put_field(o, fd->key, task_state_name(*AT(t, fd,
		    const enum task_state)));
		return 0;
	case K_PATH:
	case K_NAMES:
	case K_TRIES:
	case K_CKPT:
		s = *AT(t, fd, char *const);
		if (s != NULL && *s != '\0' && !text_valid(fd, s))
			return -1;
		put_field(o, fd->key, s);
		return 0;
	default:
		v = number_of(t, fd);
		if (v < fd->min || v > fd->max)
			return -1;
		if (fd->when == W_KNOWN ? v == -1 :
		    fd->when != W_ALWAYS && v == 0)
			return 0;
		if (fd->when == W_RUNNING && t->state != TASK_RUNNING)
			return 0;
		put_num(o, fd->key, v);
		return 0;
	}
}

/* Read one field's (unescaped) value into t; -1 if it is not valid. */
static int
decode_field(struct task *t, const struct field *fd, char *val)
{
	int64_t	v;

	switch (fd->kind) {
	case K_UUID:
	case K_NAME:
	case K_TOKEN:
	case K_LINE:
		if (!text_valid(fd, val))
			return -1;
		return copy_name(AT(t, fd, char), fd->size, val);
	case K_PRIO:
		return task_prio_parse(val, AT(t, fd, enum task_prio));
	case K_STATE:
		return task_state_parse(val, AT(t, fd, enum task_state));
	case K_PATH:
	case K_NAMES:
	case K_TRIES:
	case K_CKPT:
		if (!text_valid(fd, val))
			return -1;
		*AT(t, fd, char *) = val;	/* into the line's copy */
		return 0;
	default:
		if (lex_int(val, fd->min, fd->max, &v) == -1)
			return -1;
		if (fd->kind == K_INT)
			*AT(t, fd, int) = (int)v;
		else if (fd->kind == K_I64)
			*AT(t, fd, int64_t) = v;
		else
			*AT(t, fd, uint64_t) = (uint64_t)v;
		return 0;
	}
}

/* Copy field fd from the decoded f into the new task t: the member's
 * bytes (id and exec again, as task_new() had them), a path anew. */
static int
copy_field(struct task *t, const struct task *f, const struct field *fd)
{
	if (fd->kind == K_PATH || fd->kind == K_NAMES || fd->kind == K_TRIES ||
	    fd->kind == K_CKPT)
		return task_set_string(AT(t, fd, char *), *AT(f, fd,
		    char *const));
	memcpy(AT(t, fd, char), AT(f, fd, const char), fd->size);
	return 0;
}

/*
 * The longest t's record can grow to as it runs: every input bound and
 * each of its noutputs outputs set to the longest id, every byte of
 * them escaped (%XX), the longest reason and runner name, every number
 * at its widest.  SCHEDULE refuses a task whose record could outgrow a
 * datagram, rather than see its later STATEs dropped.
 */
struct task *
wire_task_copy(const struct task *t, char *err, size_t errlen)
{
	char	line[RECORD_LINE_MAX];
	int	len;

	if ((len = wire_task_encode(t, line, sizeof line)) < 0) {
		snprintf(err, errlen, "its record does not encode");
		return NULL;
	}
	return wire_task_decode(line, (size_t)len, err, errlen);
}

size_t
wire_task_worst_len(const struct task *t, int noutputs)
{
	char	buf[RECORD_LINE_MAX];
	int	len = wire_task_encode(t, buf, sizeof buf);

	if (len < 0)
		return SIZE_MAX;
	return (size_t)len + (size_t)t->ninputs * 3 * DATASET_MAXLEN +
	    sizeof " out=" + (size_t)noutputs * (3 * DATASET_MAXLEN + 1) +
	    sizeof " rsn=" + 3 * REASON_MAXLEN + sizeof " on=" + NAME_MAXLEN +
	    sizeof " sig=" + 86 + sizeof " eby=" + NAME_MAXLEN +
	    sizeof " esg=" + 86 + sizeof " qc=" + QC_TEXT_MAX +
	    sizeof " dg=" + DIGEST_HEX + sizeof " try=" + 3 * TRIES_TEXT_MAX +
	    sizeof " ck=" + CKPT_TEXT_MAX +
	    NFIELDS * 20 + sizeof " st=Terminated" + sizeof " susp=1";
}

/* " key=item,item": each item escaped, so it may hold anything but
 * a NUL (an argv word may be empty, or hold blanks and commas). */
static void
put_list(struct out *o, const char *key, char *const *v, int n)
{
	int	i;

	if (n == 0)
		return;
	put(o, " ", 1);
	put(o, key, strlen(key));
	put(o, "=", 1);
	for (i = 0; i < n; i++) {
		if (i > 0)
			put(o, ",", 1);
		put_escaped(o, v[i]);
	}
}

static int
encode_cmd(struct out *o, const struct task_cmd *c)
{
	char	why[REASON_MAXLEN];

	if (task_cmd_check(c, why, sizeof why) == -1)
		return -1;
	put_list(o, "cmd", c->argv, c->argc);
	put_list(o, "env", c->env, c->nenv);
	put_field(o, "cwd", c->cwd);
	put_field(o, "so", c->out);
	put_field(o, "se", c->err);
	if (c->time_limit_ms > 0)
		put_num(o, "tl", c->time_limit_ms);
	put_list(o, "outs", c->outs, c->nouts);
	put_list(o, "sen", c->secrets, c->nsecrets);
	put_list(o, "ins", c->ins, c->nins);
	put_field(o, "ind", c->in_dir);
	put_field(o, "ckf", c->ckpt_file);
	if (c->ckpt_signal > 0)
		put_num(o, "cks", c->ckpt_signal);
	return 0;
}

int
wire_task_encode(const struct task *t, char *buf, size_t len)
{
	struct out	o = { buf, len, 0, 0 };
	size_t		k;
	int		i;

	put_num(&o, "v", CODEC_VERSION);
	for (k = 0; k < NFIELDS; k++)
		if (encode_field(&o, t, &fields[k]) == -1)
			return -1;
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
	if (t->cmd != NULL && encode_cmd(&o, t->cmd) == -1)
		return -1;
	if (o.overflow)
		return -1;
	buf[o.off] = '\0';
	return (int)o.off;
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
			if (lex_unescape(ds) == -1 ||
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

/* A command task's fields as they came, before its struct exists:
 * lists still escaped, the rest unescaped. */
struct cmd_fields {
	char	*argv, *env, *outs, *secrets, *ins;
	char	*cwd, *out, *err, *ckpt_file, *in_dir;
	int64_t	 time_limit_ms, ckpt_signal;
	int	 any;
};

/* Which command field key is, stashing its value; 0 if none. */
static int
cmd_field(struct cmd_fields *cf, const char *key, char *val)
{
	char	**list = strcmp(key, "cmd") == 0 ? &cf->argv :
		    strcmp(key, "env") == 0 ? &cf->env :
		    strcmp(key, "outs") == 0 ? &cf->outs :
		    strcmp(key, "sen") == 0 ? &cf->secrets :
		    strcmp(key, "ins") == 0 ? &cf->ins : NULL;

	if (list != NULL) {
		*list = val;
		return cf->any = 1;
	}
	return 0;
}

/* An escaped list into a new string vector of *n items; -1 if bad. */
static int
decode_list(char *s, int max, char ***v, int *n)
{
	char	*item[CMD_ARGS_MAX];
	int	 i;

	*v = NULL;
	*n = 0;
	if (s == NULL)
		return 0;
	if ((*n = split_list(s, item, max)) == -1)
		return -1;
	for (i = 0; i < *n; i++)
		if (lex_unescape(item[i]) == -1)
			return -1;
	if ((*v = calloc(*n, sizeof **v)) == NULL)
		return -1;
	for (i = 0; i < *n; i++)
		if (((*v)[i] = strdup(item[i])) == NULL)
			return -1;
	return 0;
}

/* The command cf describes, checked, into t->cmd. */
static int
decode_cmd(struct task *t, struct cmd_fields *cf)
{
	struct task_cmd	*c;
	char		 why[REASON_MAXLEN];

	if (cf->argv == NULL || (c = calloc(1, sizeof *c)) == NULL)
		return -1;
	t->cmd = c;
	c->time_limit_ms = cf->time_limit_ms;
	c->ckpt_signal = (int)cf->ckpt_signal;
	if (decode_list(cf->argv, CMD_ARGS_MAX, &c->argv, &c->argc) == -1 ||
	    decode_list(cf->env, CMD_ENV_MAX, &c->env, &c->nenv) == -1 ||
	    decode_list(cf->outs, TASK_OUTPUTS_MAX, &c->outs,
	    &c->nouts) == -1 ||
	    decode_list(cf->secrets, CMD_SECRETS_MAX, &c->secrets,
	    &c->nsecrets) == -1 ||
	    decode_list(cf->ins, CMD_INS_TEXT_MAX / 68, &c->ins,
	    &c->nins) == -1 ||
	    task_set_string(&c->cwd, cf->cwd) == -1 ||
	    task_set_string(&c->out, cf->out) == -1 ||
	    task_set_string(&c->err, cf->err) == -1 ||
	    task_set_string(&c->ckpt_file, cf->ckpt_file) == -1 ||
	    task_set_string(&c->in_dir, cf->in_dir) == -1)
		return -1;
	return task_cmd_check(c, why, sizeof why);
}

/* The unescaped scalar command field key, if it is one: 1, or -1 if
 * its value is bad; 0 if it is no command field. */
static int
cmd_scalar(struct cmd_fields *cf, const char *key, char *val)
{
	char	**dst = strcmp(key, "cwd") == 0 ? &cf->cwd :
		    strcmp(key, "so") == 0 ? &cf->out :
		    strcmp(key, "se") == 0 ? &cf->err :
		    strcmp(key, "ckf") == 0 ? &cf->ckpt_file :
		    strcmp(key, "ind") == 0 ? &cf->in_dir : NULL;

	if (dst != NULL)
		*dst = val;
	else if (strcmp(key, "cks") == 0) {
		if (lex_int(val, 1, 64, &cf->ckpt_signal) == -1)
			return -1;
	} else if (strcmp(key, "tl") != 0)
		return 0;
	else if (lex_int(val, 1, CMD_TIME_LIMIT_MAX, &cf->time_limit_ms) ==
	    -1)
		return -1;
	cf->any = 1;
	return 1;
}

#define FAIL(msg) do { snprintf(err, errlen, "%s", msg); goto fail; } while (0)

struct task *
wire_task_decode(const char *line, size_t len, char *err, size_t errlen)
{
	struct task	*t = NULL;
	char		*copy, *p, *field, *in = NULL, *outs = NULL;
	struct task	 f;		/* the fields, before t exists */
	struct cmd_fields cf;
	int64_t		 version = 0;
	size_t		 k, j, next = 0;
	int		 rc;

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
	memset(&cf, 0, sizeof cf);
	f.ready_ms = f.start_ms = f.end_ms = -1;
	f.exit_status = -1;
	f.cpu_ms = f.maxrss_kib = -1;
	f.uid = -1;

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
		if (cmd_field(&cf, field, val))
			continue;
		if (lex_unescape(val) == -1)
			FAIL("bad %-escape");
		if ((rc = cmd_scalar(&cf, field, val)) == -1)
			FAIL("bad command field");
		if (rc == 1)
			continue;
		if (strcmp(field, "v") == 0) {
			if (lex_int(val, 1, 1000, &version) == -1)
				FAIL("bad version");
			continue;
		}
		/* Records come in the encoder's order: look from the field
		 * after the last one first. */
		for (j = 0; j < NFIELDS; j++)
			if (strcmp(field, fields[(next + j) % NFIELDS].key) == 0)
				break;
		if (j == NFIELDS)
			FAIL("unknown field");
		k = (next + j) % NFIELDS;
		next = k + 1;
		if (decode_field(&f, &fields[k], val) == -1)
			FAIL(fields[k].what);
	}
	if (version != CODEC_VERSION)
		FAIL("missing or unknown record version");
	if (f.uuid[0] == '\0' || f.exec[0] == '\0')
		FAIL("record lacks id or exec");
	if (in != NULL) {
		if (decode_inputs(&t, f.uuid, f.exec, in) == -1)
			FAIL("bad inputs");
	} else if ((t = task_new(f.uuid, f.exec, 0)) == NULL)
		FAIL("out of memory");
	if (outs != NULL) {
		char *v[TASK_OUTPUTS_MAX];
		int n = split_list(outs, v, TASK_OUTPUTS_MAX), i;
		if (n == -1)
			FAIL("too many outputs");
		for (i = 0; i < n; i++)
			if (lex_unescape(v[i]) == -1 ||
			    !task_token_valid(v[i], DATASET_MAXLEN))
				FAIL("bad output id");
		if (task_set_outputs(t, v, n) == -1)
			FAIL("out of memory");
	}
	for (k = 0; k < NFIELDS; k++)
		if (copy_field(t, &f, &fields[k]) == -1)
			FAIL("out of memory");
	if (cf.any && decode_cmd(t, &cf) == -1)
		FAIL("bad command");
	t->suspended = t->suspended && t->state == TASK_RUNNING;
	free(copy);
	return t;
fail:
	task_free(t);
	free(copy);
	return NULL;
}
