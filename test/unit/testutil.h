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
#include "peer.h"
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

/* A node called name with the sample descriptions (already in set). */
static inline struct node *
test_node_named(const struct taskdesc_set *set, const char *name, int slots)
{
	struct node_config	cfg;
	struct node		*n;

	node_config_default(&cfg);
	snprintf(cfg.name, sizeof cfg.name, "%s", name);
	cfg.slots = slots;
	cfg.reputation = 0;
	cfg.ageing_ms = 60000;
	n = node_new(&cfg, set);
	assert_non_null(n);
	return n;
}

static inline struct node *
test_node(struct taskdesc_set *set, int slots)
{
	plmi2_descs(set);
	return test_node_named(set, "alpha", slots);
}

/* The fixture of the one-node tests: alpha, one slot. */
struct node_fixture {
	struct node		*n;
	struct taskdesc_set	 set;
};

static inline int
fixture_setup(void **state)
{
	struct node_fixture *f = calloc(1, sizeof *f);

	f->n = test_node(&f->set, 1);
	*state = f;
	return 0;
}

static inline int
fixture_teardown(void **state)
{
	struct node_fixture *f = *state;

	node_free(f->n);
	taskdesc_clear(&f->set);
	free(f);
	return 0;
}

/* A test run on a fresh node_fixture. */
#define NODE_TEST(t) \
	cmocka_unit_test_setup_teardown(t, fixture_setup, fixture_teardown)

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

/* Schedule, its run estimated to take est_ms (0: not said); returns 0
 * or -1 with the error in err (may be NULL). */
static inline int
sched_told(struct node *n, int k, const char *exec, int prio, int64_t now,
    int nbind, const struct task_binding *bind, int64_t est_ms, char *err)
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
	req.est_ms = est_ms;
	return node_schedule(n, &req, uuid_n(k), now, err != NULL ? err : buf,
	    256);
}

static inline int
sched(struct node *n, int k, const char *exec, int prio, int64_t now,
    int nbind, const struct task_binding *bind, char *err)
{
	return sched_told(n, k, exec, prio, now, nbind, bind, 0, err);
}

/* A low task of exec its submitter expects to run est_ms. */
static inline int
sched_est(struct node *n, int k, const char *exec, int64_t now,
    int64_t est_ms)
{
	return sched_told(n, k, exec, PRIO_LOW, now, 0, NULL, est_ms, NULL);
}

/* Schedule the four-task workflow of thesis Table 4.1 as tasks 1-4. */
static inline void
plmi2_workflow(struct node *n, int base, int prio, int64_t now)
{
	struct task_binding g[3], s[3], a[1];

	assert_int_equal(sched(n, base, "import", prio, now, 0, NULL, NULL), 0);
	memcpy(g[0].uuid, uuid_n(base), sizeof g[0].uuid); g[0].nth = 1;
	memcpy(g[1].uuid, uuid_n(base), sizeof g[1].uuid); g[1].nth = 2;
	memcpy(g[2].uuid, uuid_n(base), sizeof g[2].uuid); g[2].nth = 3;
	assert_int_equal(sched(n, base + 1, "georeferencing", prio, now, 3, g,
	    NULL), 0);
	memcpy(s[0].uuid, uuid_n(base), sizeof s[0].uuid); s[0].nth = 1;
	memcpy(s[1].uuid, uuid_n(base + 1), sizeof s[1].uuid); s[1].nth = 1;
	memcpy(s[2].uuid, uuid_n(base + 1), sizeof s[2].uuid); s[2].nth = 2;
	assert_int_equal(sched(n, base + 2, "segmentation", prio, now, 3, s,
	    NULL), 0);
	memcpy(a[0].uuid, uuid_n(base + 2), sizeof a[0].uuid); a[0].nth = 1;
	assert_int_equal(sched(n, base + 3, "anomaly_detection", prio, now, 1,
	    a, NULL), 0);
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

/*
 * A datagram from peer `sender` with this body, through the real codec,
 * as the shell hands it to the core.
 */
static inline void
hear(struct node *n, const char *sender, const char *body, int64_t now)
{
	struct peer_msg	*m = malloc(sizeof *m);
	char		 text[DATAGRAM_MAX + 128], err[128];
	int		 hl;

	assert_non_null(m);
	hl = peer_header(text, sizeof text, "test", sender, 1, 7000);
	snprintf(text + hl, sizeof text - hl, "%s", body);
	if (peer_parse(text, strlen(text), m, err, sizeof err) == -1)
		fail_msg("%s: %s", err, text);
	node_peer_msg(n, m, "10.0.0.9:7000", now);
	free(m);
}

/* A heartbeat from an idle one-slot peer that is not master. */
static inline void
hear_alive(struct node *n, const char *sender, int64_t now)
{
	hear(n, sender, "HEARTBEAT 0 0 1 1 idle 10 0 0 7600 1000 0 0 500", now);
}

static inline void clear(struct node *);

/* Start n at 0; it follows beta, master of epoch 1, busy on its one
 * slot. */
static inline void
follow_beta(struct node *n)
{
	node_start(n, 0);
	hear(n, "beta", "NEW_MASTER 1", 10);
	hear(n, "beta", "HEARTBEAT 1 1 0 1 busy 10 0 0 7600 1000 0 0 500", 10);
	clear(n);
}

/* The body of the k-th datagram (0 first) starting with prefix sent to
 * peer (NULL: broadcast), or NULL. */
static inline const char *
sent_nth(struct node *n, const char *peer, const char *prefix, int k)
{
	const struct outbox	*o = node_outbox(n);
	size_t			 i;

	for (i = 0; i < o->n; i++) {
		const struct action *a = &o->v[i];
		if (a->type != (peer != NULL ? ACT_UNICAST : ACT_BROADCAST) ||
		    (peer != NULL && strcmp(a->peer, peer) != 0) ||
		    strncmp(a->text, prefix, strlen(prefix)) != 0)
			continue;
		if (k-- == 0)
			return a->text;
	}
	return NULL;
}

static inline const char *
sent(struct node *n, const char *peer, const char *prefix)
{
	return sent_nth(n, peer, prefix, 0);
}

/* The text of the last action of this type, or NULL. */
static inline const char *
last_text(struct node *n, enum action_type type)
{
	const struct outbox	*o = node_outbox(n);
	size_t			 i;

	for (i = o->n; i-- > 0;)
		if (o->v[i].type == type)
			return o->v[i].text;
	return NULL;
}

/* The last PROGRESS line told of uuid, or NULL. */
static inline const char *
told(struct node *n, const char *uuid)
{
	const struct outbox	*o = node_outbox(n);
	const char		*last = NULL;
	size_t			 i;

	for (i = 0; i < o->n; i++)
		if (o->v[i].type == ACT_NOTIFY &&
		    strcmp(o->v[i].uuid, uuid) == 0)
			last = o->v[i].text;
	return last;
}

/* A log line of the outbox containing text, or NULL. */
static inline const char *
logged(struct node *n, const char *text)
{
	const struct outbox	*o = node_outbox(n);
	size_t			 i;

	for (i = 0; i < o->n; i++)
		if (o->v[i].type == ACT_LOG && strstr(o->v[i].text, text))
			return o->v[i].text;
	return NULL;
}

/* How many log lines of the outbox contain text. */
static inline int
count_logged(struct node *n, const char *text)
{
	const struct outbox	*o = node_outbox(n);
	size_t			 i;
	int			 c = 0;

	for (i = 0; i < o->n; i++)
		c += o->v[i].type == ACT_LOG && strstr(o->v[i].text, text);
	return c;
}

static inline void
clear(struct node *n)
{
	outbox_clear(node_outbox(n));
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
	struct node_exit	e = { code, 0, -1, -1, NULL };

	node_runner_exit(n, uuid, &e, now);
}

static inline enum task_state
state_of(struct node *n, const char *uuid)
{
	struct task	*t = node_find(n, uuid);

	assert_non_null(t);
	return t->state;
}

/* A copy of t through the codec, as a peer or the journal has it. */
static inline struct task *
record_copy(const struct task *t)
{
	char		 line[RECORD_LINE_MAX], err[128];
	struct task	*copy;

	assert_true(wire_task_encode(t, line, sizeof line) > 0);
	copy = wire_task_decode(line, strlen(line), err, sizeof err);
	assert_non_null(copy);
	return copy;
}

/* A datagram's body "<type> <t's record>" (t freed), valid until the
 * next call. */
static inline const char *
record_datagram(const char *type, struct task *t)
{
	static char	 rec[RECORD_LINE_MAX + 16];
	int		 off = snprintf(rec, sizeof rec, "%s ", type);

	assert_true(wire_task_encode(t, rec + off, sizeof rec - off) > 0);
	task_free(t);
	return rec;
}

/* A restart: every task of `from` restored into `to` through the codec,
 * as the journal does, then recovered at now. */
static inline void
restart_from(struct node *from, struct node *to, int64_t now)
{
	const struct task	*t;
	size_t			 it = 0;

	while ((t = node_next_task(from, &it)) != NULL)
		assert_int_equal(node_restore(to, record_copy(t)), 0);
	node_recover(to, now);
}

#endif
