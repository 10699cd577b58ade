/*
 * testutil.h -- helpers shared by the unit tests: a node with the four
 * sample task descriptions, and queries over its outbox.
 */
#ifndef VOLERY_TESTUTIL_H
#define VOLERY_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "node.h"
#include "task.h"
#include "taskdesc.h"
#include "wire.h"

static inline void
desc(struct taskdesc_set *set, const char *name, int noutputs,
    int needs_path, int ninputs, ...)
{
	struct taskdesc	d;
	va_list		ap;
	int		i;

	memset(&d, 0, sizeof d);
	snprintf(d.name, sizeof d.name, "%s", name);
	snprintf(d.type, sizeof d.type, "%s", name);
	d.noutputs = noutputs;
	d.needs_path = needs_path;
	d.ninputs = ninputs;
	va_start(ap, ninputs);
	for (i = 0; i < ninputs; i++) {
		snprintf(d.inputs[i].type, sizeof d.inputs[i].type, "%s",
		    va_arg(ap, const char *));
		d.inputs[i].nth = va_arg(ap, int);
	}
	va_end(ap);
	assert_int_equal(taskdesc_add(set, &d), 0);
}

/* The four PLMI2 tasks bound as thesis Table 4.1. */
static inline void
plmi2_descs(struct taskdesc_set *set)
{
	memset(set, 0, sizeof *set);
	desc(set, "import", 3, 1, 0);
	desc(set, "georeferencing", 2, 0, 3, "import", 1, "import", 2,
	    "import", 3);
	desc(set, "segmentation", 1, 0, 3, "import", 1, "georeferencing", 1,
	    "georeferencing", 2);
	desc(set, "anomaly_detection", 1, 0, 1, "segmentation", 1);
	desc(set, "free", 1, 0, 0);
	desc(set, "any", 1, 0, 1, "", 0);
}

static inline struct node *
test_node(struct taskdesc_set *set, int slots)
{
	struct node_config	cfg;
	struct node		*n;

	plmi2_descs(set);
	memset(&cfg, 0, sizeof cfg);
	snprintf(cfg.name, sizeof cfg.name, "alpha");
	cfg.slots = slots;
	cfg.max_attempts = 3;
	cfg.ageing_ms = 60000;
	n = node_new(&cfg, set);
	assert_non_null(n);
	return n;
}

/* Where n stands (node_status), by value for short asserts. */
static inline struct node_status
status_of(const struct node *n)
{
	struct node_status	st;

	node_status(n, &st);
	return st;
}

/* A deterministic uuid from a small number. */
static inline const char *
uuid_n(int k)
{
	static char	buf[8][UUID_STRLEN + 1];
	static int	next;
	char		*u = buf[next++ % 8];

	snprintf(u, UUID_STRLEN + 1, "00000000-0000-4000-8000-%012d", k);
	return u;
}

/* Schedule; returns 0 or -1 with the error in err (may be NULL). */
static inline int
sched(struct node *n, int k, const char *exec, int prio, int64_t now,
    int nbind, const struct task_binding *bind, char *err)
{
	struct node_schedule_req	req;
	char				buf[256];

	memset(&req, 0, sizeof req);
	req.exec = exec;
	req.prio = prio;
	req.path = strcmp(exec, "import") == 0 ? "/data/x" : NULL;
	req.nbind = nbind;
	req.bind = bind;
	req.client = "127.0.0.1:1";
	return node_schedule(n, &req, uuid_n(k), now, err != NULL ? err : buf,
	    256);
}

/* How many actions of type for uuid (NULL: any) are in the outbox. */
static inline int
count_actions(struct node *n, enum action_type type, const char *uuid)
{
	const struct outbox	*o = node_outbox(n);
	size_t			 i;
	int			 c = 0;

	for (i = 0; i < o->n; i++)
		if (o->v[i].type == type && (uuid == NULL ||
		    strcmp(o->v[i].uuid, uuid) == 0))
			c++;
	return c;
}

static inline void
terminate(struct node *n, const char *uuid, int nout, int64_t now)
{
	struct runner_msg	m;
	static char		ids[TASK_OUTPUTS_MAX][32];
	int			i;

	memset(&m, 0, sizeof m);
	m.type = RMSG_TERMINATED;
	m.noutputs = nout;
	for (i = 0; i < nout; i++) {
		snprintf(ids[i], sizeof ids[i], "%.8s-%d", uuid + 28, i + 1);
		m.outputs[i] = ids[i];
	}
	node_runner_msg(n, uuid, &m, now);
}

static inline void
exit_with(struct node *n, const char *uuid, int code, int64_t now)
{
	struct node_exit	e = { code, 0 };

	node_runner_exit(n, uuid, &e, now);
}

static inline enum task_state
state_of(struct node *n, const char *uuid)
{
	struct task	*t = node_find(n, uuid);

	assert_non_null(t);
	return t->state;
}

#endif
