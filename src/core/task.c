/*
 * task.c -- allocation, names and validity checks of tasks.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "task.h"

static const char *state_names[TASK_NSTATES] = {
	"Submitted", "Ready", "Running", "Terminated", "Cancelled", "Failed",
};

/* The state people see: a suspended run shows as Suspended (DESIGN.md
 * section 2), though it is Running to the protocol; an end not yet
 * confirmed by a majority as Unconfirmed (it is not final yet). */
const char *
task_shown_state(const struct task *t)
{
	if (t->state == TASK_RUNNING && t->suspended)
		return "Suspended";
	if (task_is_final(t->state) && !t->confirmed)
		return "Unconfirmed";
	if (t->held && (t->state == TASK_READY || t->state == TASK_SUBMITTED))
		return "Held";
	return task_state_name(t->state);
}

struct task *
task_new(const char *uuid, const char *exec, int ninputs)
{
	struct task	*t;

	if (ninputs < 0 || ninputs > TASK_INPUTS_MAX)
		return NULL;
	if ((t = calloc(1, sizeof *t)) == NULL)
		return NULL;
	if (ninputs > 0 &&
	    (t->inputs = calloc(ninputs, sizeof *t->inputs)) == NULL) {
		free(t);
		return NULL;
	}
	t->ninputs = ninputs;
	strncpy(t->uuid, uuid, UUID_STRLEN);
	strncpy(t->exec, exec, NAME_MAXLEN);
	t->ready_ms = t->start_ms = t->end_ms = -1;
	t->exit_status = -1;
	t->cpu_ms = t->maxrss_kib = -1;
	t->uid = -1;
	return t;
}

/* FNV-1a of a uuid or name: the hash of the task map, peers and hints. */
uint64_t
task_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s != '\0')
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

void
task_free(struct task *t)
{
	int	i;

	if (t == NULL)
		return;
	for (i = 0; i < t->ninputs; i++)
		free(t->inputs[i].dataset);
	free(t->inputs);
	for (i = 0; i < t->noutputs; i++)
		free(t->outputs[i]);
	free(t->outputs);
	free(t->path);
	free(t->params);
	free(t->req_tags);
	free(t->sig);
	free(t->esg);
	free(t->qc);
	free(t->vote);
	free(t->digest);
	free(t->tries);
	free(t->ckpt);
	free(t->ckpt_next);
	task_cmd_free(t->cmd);
	free(t);
}

/* Replace *dst by a copy of src (NULL clears).  Returns -1 on ENOMEM. */
int
task_set_string(char **dst, const char *src)
{
	char	*copy = NULL;

	if (src != NULL && (copy = strdup(src)) == NULL)
		return -1;
	free(*dst);
	*dst = copy;
	return 0;
}

int
task_set_outputs(struct task *t, char *const *outs, int n)
{
	char	**v;
	int	  i;

	if (n < 0 || n > TASK_OUTPUTS_MAX)
		return -1;
	if ((v = calloc(n > 0 ? n : 1, sizeof *v)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		if ((v[i] = strdup(outs[i])) == NULL) {
			while (i-- > 0)
				free(v[i]);
			free(v);
			return -1;
		}
	}
	for (i = 0; i < t->noutputs; i++)
		free(t->outputs[i]);
	free(t->outputs);
	t->outputs = v;
	t->noutputs = n;
	return 0;
}

int
task_copy_end(struct task *t, const struct task *src)
{
	int	i;

	if (task_set_outputs(t, src->outputs, src->noutputs) == -1)
		return -1;
	for (i = 0; i < t->ninputs && i < src->ninputs; i++)
		if (task_set_string(&t->inputs[i].dataset,
		    src->inputs[i].dataset) == -1)
			return -1;
	t->state = src->state;
	snprintf(t->running_on, sizeof t->running_on, "%s", src->running_on);
	snprintf(t->reason, sizeof t->reason, "%s", src->reason);
	t->start_ms = src->start_ms;
	t->end_ms = src->end_ms;
	t->progress = src->progress;
	t->exit_status = src->exit_status;
	t->cpu_ms = src->cpu_ms;
	t->maxrss_kib = src->maxrss_kib;
	/* Its author's word for it goes with it. */
	if (task_set_string(&t->esg, src->esg) == -1 ||
	    task_set_string(&t->digest, src->digest) == -1)
		return -1;
	memcpy(t->eby, src->eby, sizeof t->eby);
	t->esg_ok = src->esg_ok;
	memcpy(t->esg_for, src->esg_for, sizeof t->esg_for);
	return 0;
}

void
task_replica_uuid(const char *of, int i, char out[UUID_STRLEN + 1])
{
	static const char	 hex[] = "0123456789abcdef";
	const char		*digits = strchr(hex, of[UUID_STRLEN - 2] |
				    0x20);
	const char		*digit2 = strchr(hex, of[UUID_STRLEN - 1] |
				    0x20);
	int			 b;

	memcpy(out, of, UUID_STRLEN + 1);
	if (digits == NULL || digit2 == NULL || *digits == '\0' ||
	    *digit2 == '\0')
		return;		/* never: the uuid was checked */
	/* The last byte, xor i + 1: distinct from the task's and from
	 * each other's, the uuid's version and variant bits kept. */
	b = ((int)(digits - hex) << 4 | (int)(digit2 - hex)) ^ (i + 1);
	out[UUID_STRLEN - 2] = hex[b >> 4 & 15];
	out[UUID_STRLEN - 1] = hex[b & 15];
}

int
task_same_str(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

int
task_same_outputs(const struct task *a, const struct task *b)
{
	int	i;

	if (a->noutputs != b->noutputs)
		return 0;
	for (i = 0; i < a->noutputs; i++)
		if (strcmp(a->outputs[i], b->outputs[i]) != 0)
			return 0;
	return 1;
}

int
task_is_verified(const struct task *t)
{
	return t->verify > 0 && t->replica_of[0] == '\0';
}

int
task_is_replica(const struct task *t)
{
	return t->replica_of[0] != '\0';
}

int
task_replica_number(const struct task *t)
{
	/* The tail's indexes come after --verify's (bounds.h). */
	return t->replica_index + 1 - (t->verify == 0 ? TAIL_INDEX_BASE : 0);
}

const char *
task_workflow(const struct task *t)
{
	return t->workflow[0] != '\0' ? t->workflow : t->uuid;
}

int
task_inputs_bound(const struct task *t)
{
	int	i;

	for (i = 0; i < t->ninputs; i++)
		if (t->inputs[i].dataset == NULL)
			return 0;
	return 1;
}

int
task_is_final(enum task_state s)
{
	return s == TASK_TERMINATED || s == TASK_CANCELLED ||
	    s == TASK_FAILED;
}

int
task_is_settled(const struct task *t)
{
	return task_is_final(t->state) && t->confirmed;
}

int
task_result_kept(const struct task *t)
{
	return t->state == TASK_TERMINATED && t->confirmed;
}

const char *
task_state_name(enum task_state s)
{
	if ((unsigned)s >= TASK_NSTATES)
		return "?";
	return state_names[s];
}

int
task_state_parse(const char *s, enum task_state *out)
{
	int	i;

	for (i = 0; i < TASK_NSTATES; i++) {
		if (strcasecmp(s, state_names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

const char *
task_prio_name(enum task_prio p)
{
	return p == PRIO_INTERACTIVE ? "interactive" : "low";
}

/* "low"/"interactive", or 1/2 as the thesis' tester sent them. */
int
task_prio_parse(const char *s, enum task_prio *out)
{
	if (strcasecmp(s, "low") == 0 || strcmp(s, "1") == 0)
		*out = PRIO_LOW;
	else if (strcasecmp(s, "interactive") == 0 || strcmp(s, "2") == 0)
		*out = PRIO_INTERACTIVE;
	else
		return -1;
	return 0;
}

/* Canonical RFC 4122 text: 8-4-4-4-12 hex digits, any case. */
int
task_uuid_valid(const char *s)
{
	int	i;

	for (i = 0; i < UUID_STRLEN; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return 0;
		} else if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F')))
			return 0;	/* isxdigit, without the locale's table */
	}
	return s[UUID_STRLEN] == '\0';
}

/*
 * An executable, task type or node name: letters, digits, '_', '-' and
 * '.', not starting with '.', so it can never leave the tasks directory.
 */
int
task_name_valid(const char *s)
{
	size_t	len = strlen(s);
	size_t	i;

	if (len == 0 || len > NAME_MAXLEN || s[0] == '.' || s[0] == '-')
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];
		if (!isalnum(c) && c != '_' && c != '-' && c != '.')
			return 0;
	}
	return 1;
}

/* A printable token of at most max bytes, without blanks or commas. */
int
task_token_valid(const char *s, int max)
{
	size_t	len = strlen(s);
	size_t	i;

	if (len == 0 || len > (size_t)max)
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = s[i];
		if (c <= ' ' || c == 0x7f || c == ',')
			return 0;
	}
	return 1;
}

int
task_names_valid(const char *list, int max)
{
	const char	*p = list, *end;
	char		 name[NAME_MAXLEN + 1];
	int		 n = 0;

	if (strlen(list) > CAPS_TEXT_MAX)
		return 0;
	while (*p != '\0') {
		end = strchr(p, ',');
		if (end == NULL)
			end = p + strlen(p);
		if (end - p > NAME_MAXLEN || ++n > max)
			return 0;
		memcpy(name, p, end - p);
		name[end - p] = '\0';
		if (!task_name_valid(name))
			return 0;
		p = *end == ',' ? end + 1 : end;
		if (*end == ',' && *p == '\0')
			return 0;	/* a trailing comma */
	}
	return 1;
}

/* Does the comma list hold an item that is name, or (tail) name and
 * then tail? */
static int
list_has(const char *list, const char *name, int tail)
{
	size_t		 len = strlen(name);
	const char	*p = list;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, name, len) == 0 && (tail != 0 ? p[len] == tail :
		    p[len] == ',' || p[len] == '\0'))
			return 1;
		if ((p = strchr(p, ',')) != NULL)
			p++;
	}
	return 0;
}

int
task_names_have(const char *list, const char *name)
{
	return list_has(list, name, 0);
}

int
task_tries_have(const char *tries, const char *node)
{
	return list_has(tries, node, ':');
}

int
task_cores(const struct task *t)
{
	return t->req_cores > 1 ? t->req_cores : 1;
}
