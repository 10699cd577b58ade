/*
 * cmdend.c -- how a command task's run ended (cmdend.h).
 */
#include <stdio.h>
#include <string.h>

#include "bounds.h"
#include "cmdend.h"
#include "task.h"
#include "wire.h"

void
cmdend_decide(const struct cmdend_facts *f, struct runner_msg *m)
{
	int	i;

	memset(m, 0, sizeof *m);
	m->type = RMSG_ERROR;
	m->message = m->buf;
	if (f->timed_out) {
		m->final = 1;	/* another attempt would run out too */
		snprintf(m->buf, sizeof m->buf, "time limit of %lld s reached",
		    (long long)(f->limit_ms / 1000));
		return;
	}
	if (f->signo != 0) {
		snprintf(m->buf, sizeof m->buf, "killed by signal %d (%s)",
		    f->signo, f->signame != NULL ? f->signame : "?");
		return;
	}
	if (f->code != 0) {
		snprintf(m->buf, sizeof m->buf, "exit status %d", f->code);
		return;
	}
	for (i = 0; i < f->nouts; i++) {
		const struct cmdend_output *o = &f->outs[i];
		if (o->is_line) {
			if (o->found == NULL) {
				snprintf(m->buf, sizeof m->buf, "output %d: no "
				    "line of its stdout matched %.100s", i + 1,
				    o->spec);
				return;
			}
			m->outputs[i] = (char *)o->found;
		} else if (!f->file_there(o->path, f->arg)) {
			snprintf(m->buf, sizeof m->buf, "output %d: no file "
			    "%.120s", i + 1, o->spec);
			return;
		} else
			m->outputs[i] = (char *)o->spec;
		if (!task_token_valid(m->outputs[i], DATASET_MAXLEN)) {
			snprintf(m->buf, sizeof m->buf, "output %d: '%.40s' is "
			    "not a dataset id (at most %d bytes, no blank or "
			    "',')", i + 1, m->outputs[i], DATASET_MAXLEN);
			return;
		}
	}
	m->type = RMSG_TERMINATED;
	m->noutputs = f->nouts;
}
