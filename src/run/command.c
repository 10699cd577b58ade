/*
 * command.c -- what a command task adds to a run (command.h).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <sodium.h>

#include "bounds.h"
#include "clock.h"
#include "cmdend.h"
#include "cmdrun.h"
#include "command.h"
#include "runas.h"
#include "task.h"
#include "wire.h"

struct command_run {
	int		  nouts;
	char		**outs;		/* "file:PATH" (expanded), "line:RE" */
	char		**paths;	/* a file output's absolute path */
	pcre2_code	 *re[TASK_OUTPUTS_MAX];	/* line outputs */
	char		 *found[TASK_OUTPUTS_MAX];
	char		  line[RUNNER_LINE_MAX + 1];	/* stdout's last */
	size_t		  linelen;
	int		  overlong;	/* the line is past the limit */
	int64_t		  limit_total_ms;	/* its time limit, 0: none */
	int64_t		  limit_ms;	/* time left of it */
	int64_t		  limit_since;	/* counting since (node clock) */
	struct event	 *limit_timer;
	int		  timed_out;
	int		(*expired)(void *);
	void		 *expired_arg;
	void		(*progress)(const struct runner_msg *, void *);
	void		 *progress_arg;
	/* A replica's result as --verify compares it: stdout, then the
	 * output files' contents (command_run_result); other runs hash
	 * nothing. */
	int		  hashing;
	crypto_generichash_state hash;
};

void
command_run_free(struct command_run *cr)
{
	int	i;

	if (cr == NULL)
		return;
	for (i = 0; i < cr->nouts; i++) {
		free(cr->outs[i]);
		free(cr->paths[i]);
		free(cr->found[i]);
		pcre2_code_free(cr->re[i]);
	}
	free(cr->outs);
	free(cr->paths);
	if (cr->limit_timer != NULL)
		event_free(cr->limit_timer);
	free(cr);
}

void
command_run_on_progress(struct command_run *cr,
    void (*progress)(const struct runner_msg *, void *), void *arg)
{
	cr->progress = progress;
	cr->progress_arg = arg;
}

struct command_run *
command_run_new(const struct task *t, char *err, size_t errlen)
{
	struct command_run	*cr;
	const struct task_cmd	*c = t->cmd;
	PCRE2_SIZE		 off;
	int			 i, code;

	if ((cr = calloc(1, sizeof *cr)) == NULL ||
	    (c->nouts > 0 && ((cr->outs = calloc(c->nouts,
	    sizeof *cr->outs)) == NULL || (cr->paths = calloc(c->nouts,
	    sizeof *cr->paths)) == NULL)))
		goto nomem;
	for (i = 0; i < c->nouts; i++, cr->nouts++) {
		char path[PATH_MAX];
		if ((cr->outs[i] = cmdrun_expand(t, c->outs[i])) == NULL)
			goto nomem;
		if (strncmp(cr->outs[i], "file:", 5) == 0) {
			if (cmdrun_path(t, cr->outs[i] + 5, path,
			    sizeof path) == -1 ||
			    (cr->paths[i] = strdup(path)) == NULL)
				goto nomem;
			continue;
		}
		cr->re[i] = pcre2_compile((PCRE2_SPTR)c->outs[i] + 5,
		    PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
		if (cr->re[i] == NULL) {
			char msg[120];
			pcre2_get_error_message(code, (PCRE2_UCHAR *)msg,
			    sizeof msg);
			snprintf(err, errlen, "output %d: %s at offset %zu of "
			    "%.60s", i + 1, msg, (size_t)off, c->outs[i] + 5);
			command_run_free(cr);
			return NULL;
		}
	}
	cr->limit_total_ms = cr->limit_ms = c->time_limit_ms;
	if ((cr->hashing = task_is_replica(t)))
		crypto_generichash_init(&cr->hash, NULL, 0, DIGEST_HEX / 2);
	return cr;
nomem:
	snprintf(err, errlen, "out of memory");
	command_run_free(cr);
	return NULL;
}

/* A whole line of a command's stdout: a PROGRESS line moves its bar,
 * and each line output not found yet is looked for in it. */
static void
command_line(struct command_run *cr, const char *line, size_t len)
{
	pcre2_match_data	*md;
	PCRE2_SIZE		*ov;
	struct runner_msg	*m;
	char			 err[64];
	int			 i, rc, g;

	if (len > 9 && strncmp(line, "PROGRESS ", 9) == 0 &&
	    cr->progress != NULL && (m = malloc(sizeof *m)) != NULL) {
		if (wire_runner_parse(line, len, m, err, sizeof err) == 0)
			cr->progress(m, cr->progress_arg);
		free(m);
	}
	for (i = 0; i < cr->nouts; i++) {
		if (cr->re[i] == NULL || cr->found[i] != NULL)
			continue;
		md = pcre2_match_data_create_from_pattern(cr->re[i], NULL);
		if (md == NULL)
			continue;
		rc = pcre2_match(cr->re[i], (PCRE2_SPTR)line, len, 0, 0, md,
		    NULL);
		if (rc > 0) {
			ov = pcre2_get_ovector_pointer(md);
			g = rc > 1 && ov[2] != PCRE2_UNSET ? 1 : 0;
			cr->found[i] = strndup(line + ov[2 * g],
			    ov[2 * g + 1] - ov[2 * g]);
		}
		pcre2_match_data_free(md);
	}
}

/* Bytes of a command's stdout: cut into lines for command_line(). */
void
command_run_stdout(struct command_run *cr, const char *p, size_t n)
{
	const char	*nl;
	size_t		 k;

	if (cr->hashing)
		crypto_generichash_update(&cr->hash, (const unsigned char *)p,
		    n);
	while (n > 0) {
		nl = memchr(p, '\n', n);
		k = nl != NULL ? (size_t)(nl - p) : n;
		if (!cr->overlong && cr->linelen + k <= RUNNER_LINE_MAX) {
			memcpy(cr->line + cr->linelen, p, k);
			cr->linelen += k;
		} else
			cr->overlong = 1;	/* too long to look into */
		if (nl == NULL)
			return;
		if (!cr->overlong)
			command_line(cr, cr->line, cr->linelen);
		cr->linelen = 0;
		cr->overlong = 0;
		p += k + 1;
		n -= k + 1;
	}
}

void
command_run_flush(struct command_run *cr)
{
	if (cr->linelen > 0 && !cr->overlong)
		command_line(cr, cr->line, cr->linelen);
	cr->linelen = 0;
}

static void
limit_cb(evutil_socket_t fd, short what, void *arg)
{
	struct command_run	*cr = arg;

	if (cr->expired(cr->expired_arg))
		cr->timed_out = 1;
}

int
command_run_arm_limit(struct command_run *cr, struct event_base *base,
    int (*expired)(void *), void *arg)
{
	struct timeval	tv = { cr->limit_ms / 1000, cr->limit_ms % 1000 * 1000 };

	if (cr->limit_ms <= 0)
		return 0;
	cr->expired = expired;
	cr->expired_arg = arg;
	cr->limit_since = clock_node_ms();
	if ((cr->limit_timer = evtimer_new(base, limit_cb, cr)) == NULL)
		return -1;
	return evtimer_add(cr->limit_timer, &tv);
}

/* A suspended run's time does not count against its time limit. */
void
command_run_pause(struct command_run *cr, int stop)
{
	int64_t		now = clock_node_ms();
	struct timeval	tv;

	if (cr->limit_timer == NULL)
		return;
	if (stop) {
		cr->limit_ms -= now - cr->limit_since;
		if (cr->limit_ms < 1)
			cr->limit_ms = 1;
		evtimer_del(cr->limit_timer);
	} else {
		cr->limit_since = now;
		tv.tv_sec = cr->limit_ms / 1000;
		tv.tv_usec = cr->limit_ms % 1000 * 1000;
		evtimer_add(cr->limit_timer, &tv);
	}
}

long long
command_run_limit_s(const struct command_run *cr)
{
	return (long long)(cr->limit_total_ms / 1000);
}

/* A result's digest: what was hashed of stdout, then each output --
 * a file's length and bytes as the run user reads them, a line's
 * value -- so two runs agree only if all of it is the same. */
static void
digest(struct command_run *cr, const struct runas *user,
    const struct runner_msg *m, char hex[DIGEST_HEX + 1])
{
	unsigned char	buf[16384], h[DIGEST_HEX / 2];
	uint64_t	total;
	ssize_t		got;
	int		i, fd;

	for (i = 0; i < cr->nouts && i < m->noutputs; i++) {
		total = 0;
		if (cr->paths[i] != NULL && (fd = runas_open(user,
		    cr->paths[i], O_RDONLY | O_CLOEXEC, 0)) != -1) {
			while ((got = read(fd, buf, sizeof buf)) > 0) {
				crypto_generichash_update(&cr->hash, buf,
				    (size_t)got);
				total += (uint64_t)got;
			}
			close(fd);
		} else
			crypto_generichash_update(&cr->hash, (const unsigned
			    char *)m->outputs[i], strlen(m->outputs[i]));
		/* Where one output ends and the next begins. */
		crypto_generichash_update(&cr->hash, (const unsigned char *)
		    &total, sizeof total);
	}
	crypto_generichash_final(&cr->hash, h, sizeof h);
	sodium_bin2hex(hex, DIGEST_HEX + 1, h, sizeof h);
}

/* Is path (a command's file output) there, as the run user sees it? */
static int
file_there(const char *path, void *arg)
{
	int	fd = runas_open(arg, path, O_RDONLY | O_CLOEXEC, 0);

	if (fd == -1)
		return 0;
	close(fd);
	return 1;
}

void
command_run_result(struct command_run *cr, int code, int signo,
    const struct runas *user, struct runner_msg *m)
{
	struct cmdend_output	outs[TASK_OUTPUTS_MAX];
	struct cmdend_facts	f;
	int			i;

	memset(&f, 0, sizeof f);
	for (i = 0; i < cr->nouts; i++) {
		outs[i].spec = cr->outs[i] + 5;
		outs[i].is_line = cr->re[i] != NULL;
		outs[i].found = cr->found[i];
		outs[i].path = cr->paths[i];
	}
	f.timed_out = cr->timed_out;
	f.limit_ms = cr->limit_total_ms;
	f.code = code;
	f.signo = signo;
	f.signame = signo != 0 ? strsignal(signo) : NULL;
	f.nouts = cr->nouts;
	f.outs = outs;
	f.file_there = file_there;
	f.arg = (void *)user;
	cmdend_decide(&f, m);
	if (cr->hashing && m->type == RMSG_TERMINATED)
		digest(cr, user, m, m->digest);
}
