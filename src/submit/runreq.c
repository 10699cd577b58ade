/*
 * runreq.c -- a command task's RUN request line (runreq.h).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bounds.h"
#include "lex.h"
#include "runreq.h"
#include "task.h"

struct line {
	char	*buf;
	size_t	 size, off;
	int	 full;
};

static void
add(struct line *l, const char *s)
{
	size_t	n = strlen(s);

	if (l->off + n >= l->size) {
		l->full = 1;
		return;
	}
	memcpy(l->buf + l->off, s, n + 1);
	l->off += n;
}

/* " opt value", the value escaped (opt NULL: the value alone). */
static void
add_value(struct line *l, const char *opt, const char *value)
{
	char	esc[3 * CLIENT_LINE_MAX + 1];

	if (value == NULL)
		return;
	if (opt != NULL) {
		add(l, " ");
		add(l, opt);
	}
	add(l, " ");
	if (*value == '\0')
		add(l, "%");	/* the empty string */
	else if (lex_escape(value, esc, sizeof esc) == -1)
		l->full = 1;
	else
		add(l, esc);
}

/* printf at buf[*off]; -1 if it does not fit. */
static int __attribute__((format(printf, 4, 5)))
append(char *buf, size_t size, size_t *off, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *off, size - *off, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - *off)
		return -1;
	*off += n;
	return 0;
}

int
runreq_extra(char *buf, size_t size, size_t *off,
    const struct runreq_extra *x)
{
	if ((x->array[0] != '\0' && append(buf, size, off, " -A %s %d %d",
	    x->array, x->index, x->max_running) == -1) ||
	    (x->cores > 0 && append(buf, size, off, " -c %d",
	    x->cores) == -1) ||
	    (x->memory_mb > 0 && append(buf, size, off, " -m %" PRId64,
	    x->memory_mb) == -1) ||
	    (x->tags != NULL && x->tags[0] != '\0' && append(buf, size, off,
	    " -g %s", x->tags) == -1) ||
	    (x->begin_ms > 0 && append(buf, size, off, " -b %" PRId64,
	    x->begin_ms) == -1) ||
	    (x->deadline_ms > 0 && append(buf, size, off, " -%c %" PRId64,
	    x->deadline_strict ? 'H' : 'D', x->deadline_ms) == -1) ||
	    (x->verify > 0 && append(buf, size, off, " -V %d",
	    x->verify) == -1) ||
	    (x->est_ms > 0 && append(buf, size, off, " -T %" PRId64,
	    x->est_ms) == -1))
		return -1;
	return 0;
}

int
runreq_format(char *buf, size_t size, const char *name, const char *prio,
    const struct task_cmd *c, const struct task_binding *bind, int nbind,
    const struct runreq_extra *extra)
{
	struct line	l = { buf, size, 0, 0 };
	char		num[80];
	int		i;

	add(&l, "RUN ");
	add(&l, name);
	add(&l, " ");
	add(&l, prio);
	add_value(&l, "-d", c->cwd);
	add_value(&l, "-o", c->out);
	add_value(&l, "-e", c->err);
	for (i = 0; i < c->nenv; i++)
		add_value(&l, "-E", c->env[i]);
	for (i = 0; extra != NULL && i < extra->nsecrets; i++)
		add_value(&l, "-S", extra->secrets[i]);
	if (c->time_limit_ms > 0) {
		snprintf(num, sizeof num, "%" PRId64,
		    (c->time_limit_ms + 999) / 1000);
		add_value(&l, "-t", num);
	}
	for (i = 0; i < nbind; i++) {
		snprintf(num, sizeof num, " -a %s %d", bind[i].uuid,
		    bind[i].nth);
		add(&l, num);
	}
	for (i = 0; i < c->nouts; i++)
		add_value(&l, "-O", c->outs[i]);
	add_value(&l, "-I", c->in_dir);
	for (i = 0; i < c->nins; i++)
		add_value(&l, "-i", c->ins[i]);
	add_value(&l, "-k", c->ckpt_file);
	if (c->ckpt_signal > 0) {
		snprintf(num, sizeof num, "%d", c->ckpt_signal);
		add_value(&l, "-K", num);
	}
	if (extra != NULL && !l.full &&
	    runreq_extra(l.buf, l.size, &l.off, extra) == -1)
		l.full = 1;
	add(&l, " --");
	for (i = 0; i < c->argc; i++)
		add_value(&l, NULL, c->argv[i]);
	return l.full ? -1 : 0;
}

void
runreq_name(const char *prog, char *name, size_t size)
{
	const char	*base = strrchr(prog, '/');
	size_t		 i, k = 0;
	int		 ok;

	base = base != NULL ? base + 1 : prog;
	for (i = 0; base[i] != '\0' && k + 1 < size && k < NAME_MAXLEN; i++) {
		unsigned char c = base[i];
		ok = isalnum(c) || c == '_' || c == '-' || (c == '.' && k > 0);
		name[k++] = ok ? (char)c : '_';
	}
	name[k] = '\0';
	if (k == 0 || name[0] == '-')
		snprintf(name, size, "command");
}
