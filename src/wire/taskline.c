/*
 * taskline.c -- parse one line a task wrote on its stdout (DESIGN.md
 * section 4): PROGRESS <percent>, TERMINATED <output_id>..., CANCELLED,
 * ERROR <message>, CHECKPOINT <file> (written into its run dir).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lex.h"
#include "wire.h"

/* A percentage from 0 to 100, maybe followed by '%'; a fraction is
 * rounded down. */
static int
parse_percent(char *s, int *out)
{
	size_t	n = strlen(s);
	double	v;

	while (n > 0 && strchr(LEX_BLANKS "%", s[n - 1]) != NULL)
		s[--n] = '\0';
	if (lex_decimal(s, 0, 100, &v) == -1)
		return -1;
	*out = (int)v;
	return 0;
}

int
wire_runner_parse(const char *line, size_t len, struct runner_msg *m,
    char *err, size_t errlen)
{
	char	*word, *rest, *p;

	memset(m, 0, offsetof(struct runner_msg, buf));
	if (len > RUNNER_LINE_MAX || memchr(line, '\0', len) != NULL) {
		snprintf(err, errlen, "line too long or holds a NUL byte");
		return -1;
	}
	memcpy(m->buf, line, len);
	m->buf[len] = '\0';
	if (len > 0 && m->buf[len - 1] == '\r')
		m->buf[len - 1] = '\0';
	rest = m->buf;
	if ((word = lex_word_nonempty(&rest, LEX_BLANKS)) == NULL)
		word = rest;		/* "" */
	rest = lex_rest(&rest, LEX_BLANKS);

	if (strcasecmp(word, "PROGRESS") == 0) {
		m->type = RMSG_PROGRESS;
		if (parse_percent(rest, &m->percent) == -1) {
			snprintf(err, errlen, "PROGRESS needs a percentage "
			    "from 0 to 100");
			return -1;
		}
		return 0;
	}
	if (strcasecmp(word, "TERMINATED") == 0) {
		m->type = RMSG_TERMINATED;
		p = rest;
		for (;;) {
			char *id = lex_word_nonempty(&p, LEX_BLANKS);
			if (id == NULL)
				break;
			if (m->noutputs == TASK_OUTPUTS_MAX) {
				snprintf(err, errlen, "more than %d outputs",
				    TASK_OUTPUTS_MAX);
				return -1;
			}
			if (!task_token_valid(id, DATASET_MAXLEN)) {
				snprintf(err, errlen, "bad output id: at most "
				    "%d printable bytes, no ','",
				    DATASET_MAXLEN);
				return -1;
			}
			m->outputs[m->noutputs++] = id;
		}
		return 0;
	}
	if (strcasecmp(word, "CANCELLED") == 0 && *rest == '\0') {
		m->type = RMSG_CANCELLED;
		return 0;
	}
	if (strcasecmp(word, "ERROR") == 0) {
		m->type = RMSG_ERROR;
		m->message = *rest != '\0' ? rest : "(no message)";
		return 0;
	}
	if (strcasecmp(word, "CHECKPOINT") == 0) {
		m->type = RMSG_CHECKPOINT;
		m->message = rest;
		if (!task_ckpt_file_valid(rest)) {
			snprintf(err, errlen, "CHECKPOINT needs a file name "
			    "in the run dir: 1 to %d of A-Z a-z 0-9 . _ -",
			    CKPT_FILE_MAX);
			return -1;
		}
		return 0;
	}
	snprintf(err, errlen, "not a runner message (PROGRESS, TERMINATED, "
	    "CANCELLED, ERROR, CHECKPOINT)");
	return -1;
}

struct runner_msg *
wire_runner_dup(const struct runner_msg *m)
{
	struct runner_msg	*c = malloc(sizeof *c);
	int			 i;

	if (c == NULL)
		return NULL;
	memcpy(c, m, sizeof *c);
	for (i = 0; i < m->noutputs; i++)
		c->outputs[i] = c->buf + (m->outputs[i] - m->buf);
	if (m->message >= m->buf && m->message < m->buf + sizeof m->buf)
		c->message = c->buf + (m->message - m->buf);
	return c;
}
