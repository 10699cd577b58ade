/*
 * progress.c -- the PROGRESS line a subscriber receives (DESIGN.md
 * section 3):
 *
 *   PROGRESS <uuid> <percent> <state> [node=<name>] [attempt=<n>]
 *       [ckpt=<seq>:<made_ms>:<node>,...]
 *       [outputs=<id>,...] [waited=<s>] [makespan=<s>]
 *       [outcome=<end>] [eta=<s>] [reason=<text to the end of the line>]
 *
 * An end not confirmed yet by a majority shows as state Unconfirmed,
 * with the end proposed as outcome=.
 *
 * waited (time Ready before the run that ended it) and makespan (from
 * submit to the end) come once the task has ended, as in the log; eta
 * (seconds from the line until its expected end) while it has not: the
 * node that sends the line adds it (wire_progress_add_eta).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lex.h"
#include "wire.h"

int
wire_progress_line(const struct task *t, char *buf, size_t size)
{
	struct task_ckpt	c;
	size_t			off;
	int			i;

	off = snprintf(buf, size, "PROGRESS %s %d %s", t->uuid,
	    t->state == TASK_TERMINATED ? 100 : t->progress,
	    task_shown_state(t));
	if (t->running_on[0] != '\0' && off < size)
		off += snprintf(buf + off, size - off, " node=%s",
		    t->running_on);
	if (t->attempts > 0 && off < size)
		off += snprintf(buf + off, size - off, " attempt=%d",
		    t->attempts);
	if (t->array[0] != '\0' && off < size)
		off += snprintf(buf + off, size - off, " array=%s:%d",
		    t->array, t->array_index);
	if (t->ckpt != NULL && task_ckpt_parse(t->ckpt, &c) && off < size) {
		off += snprintf(buf + off, size - off, " ckpt=%lld:%lld:",
		    (long long)c.seq, (long long)c.made_ms);
		for (i = 0; i < c.nholders && off < size; i++)
			off += snprintf(buf + off, size - off, "%s%s", i > 0 ?
			    "," : "", c.holders[i]);
	}
	for (i = 0; i < t->noutputs && off < size; i++)
		off += snprintf(buf + off, size - off, "%s%s",
		    i == 0 ? " outputs=" : ",", t->outputs[i]);
	if (task_is_final(t->state) && t->start_ms >= t->ready_ms &&
	    t->ready_ms >= 0 && off < size)
		off += snprintf(buf + off, size - off, " waited=%.3f",
		    (t->start_ms - t->ready_ms) / 1000.0);
	if (task_is_final(t->state) && t->end_ms >= t->submit_ms &&
	    t->submit_ms > 0 && off < size)
		off += snprintf(buf + off, size - off, " makespan=%.3f",
		    (t->end_ms - t->submit_ms) / 1000.0);
	if (task_is_final(t->state) && !t->confirmed && off < size)
		off += snprintf(buf + off, size - off, " outcome=%s",
		    task_state_name(t->state));
	if (t->reason[0] != '\0' && off < size)
		off += snprintf(buf + off, size - off, " reason=%s",
		    t->reason);
	if (off + 2 > size)
		off = size - 2;
	buf[off++] = '\n';
	buf[off] = '\0';
	return (int)off;
}


int
wire_progress_parse(const char *line, struct wire_progress *p)
{
	char	 copy[CLIENT_LINE_MAX + 1], *s, *word, *reason;
	double	 v;
	int	 k;

	memset(p, 0, sizeof *p);
	p->waited = p->makespan = p->eta = -1;
	if (strlen(line) > CLIENT_LINE_MAX)
		return -1;
	snprintf(copy, sizeof copy, "%s", line);
	/* reason= runs to the end of the line: take it off first. */
	if ((reason = strstr(copy, " reason=")) != NULL) {
		*reason = '\0';
		snprintf(p->reason, sizeof p->reason, "%s", reason + 8);
	}
	s = copy;
	for (k = 0; (word = lex_word(&s, LEX_STRICT)) != NULL; k++) {
		if (k == 0) {
			if (strcmp(word, "PROGRESS") != 0)
				return -1;
		} else if (k == 1) {
			if (!task_uuid_valid(word))
				return -1;
			memcpy(p->uuid, word, UUID_STRLEN + 1);
		} else if (k == 2) {
			if (lex_decimal(word, 0, 100, &v) == -1)
				return -1;
			p->percent = (int)v;
		} else if (k == 3) {
			if (strlen(word) >= sizeof p->state || *word == '\0')
				return -1;
			snprintf(p->state, sizeof p->state, "%s", word);
		} else if (strncmp(word, "node=", 5) == 0) {
			if (!task_name_valid(word + 5))
				return -1;
			snprintf(p->node, sizeof p->node, "%s", word + 5);
		} else if (strncmp(word, "attempt=", 8) == 0) {
			if (lex_decimal(word + 8, 0, 1e6, &v) == -1)
				return -1;
			p->attempt = (int)v;
		} else if (strncmp(word, "array=", 6) == 0) {
			char *colon = strchr(word + 6, ':');
			if (colon == NULL || colon - (word + 6) != UUID_STRLEN)
				return -1;
			*colon = '\0';
			if (!task_uuid_valid(word + 6) || lex_decimal(colon + 1,
			    0, ARRAY_INDEX_MAX, &v) == -1)
				return -1;
			memcpy(p->array, word + 6, UUID_STRLEN + 1);
			p->array_index = (int)v;
		} else if (strncmp(word, "ckpt=", 5) == 0) {
			char *made = strchr(word + 5, ':'), *at;
			if (made == NULL || (at = strchr(made + 1, ':')) == NULL)
				return -1;
			*made = *at = '\0';
			if (lex_int(word + 5, 1, CKPT_SEQ_MAX, &p->ckpt_seq) ==
			    -1 || lex_int(made + 1, 0, INT64_MAX,
			    &p->ckpt_made_ms) == -1 || at[1] == '\0' ||
			    !task_names_valid(at + 1, CKPT_HOLDERS_MAX) ||
			    strlen(at + 1) >= sizeof p->ckpt_at)
				return -1;
			memcpy(p->ckpt_at, at + 1, strlen(at + 1) + 1);
		} else if (strncmp(word, "waited=", 7) == 0) {
			if (lex_decimal(word + 7, 0, 1e12, &p->waited) == -1)
				return -1;
		} else if (strncmp(word, "eta=", 4) == 0) {
			if (lex_decimal(word + 4, 0, 1e12, &p->eta) == -1)
				return -1;
		} else if (strncmp(word, "makespan=", 9) == 0) {
			if (lex_decimal(word + 9, 0, 1e12, &p->makespan) ==
			    -1)
				return -1;
		}
		/* Other key=value fields (outputs=) are not needed here. */
	}
	return k >= 4 ? 0 : -1;
}

int
wire_progress_add_eta(char *line, size_t size, int64_t end_in_ms)
{
	char	field[32], *at, *eta;
	size_t	len = strlen(line), flen;

	/* Before reason= (it runs to the end), else before the newline. */
	if ((at = strstr(line, " reason=")) == NULL)
		at = line + strcspn(line, "\n");
	/* Only the fields count: a reason's text may say " eta=". */
	eta = strstr(line, " eta=");
	if (end_in_ms < 0 || (eta != NULL && eta < at))
		return -1;
	flen = (size_t)snprintf(field, sizeof field, " eta=%.1f",
	    end_in_ms / 1000.0);
	if (len + flen + 1 > size)
		return -1;
	memmove(at + flen, at, strlen(at) + 1);
	memcpy(at, field, flen);
	return 0;
}
