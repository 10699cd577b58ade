/*
 * bench_core.c -- what a big map costs the core, per tick and per
 * message (make bench-core; not a test).  A node holds N finished tasks
 * (restored, as after a week of work) and a few running on peers; it
 * then takes T housekeeping ticks and T peer PROGRESS datagrams.  The
 * work of a tick or a message should not grow with N.  Then the same
 * with W tasks waiting Ready that this node cannot run (a tag it lacks:
 * an office's queue for its one GPU desktop), which should not cost a
 * tick or a message anything either (issue 40).
 *
 * Last, what a heartbeat costs a node that hears P peers: an idle
 * office's whole traffic, which should not grow with P either.
 *
 *   build/bench-core [N[w|p]...] default: 1000 10000 100000, then
 *                                1000 10000 100000 waiting (Nw:
 *                                N waiting), then 10 100 1000 peers
 *                                (Np: N peers)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "node.h"
#include "peer.h"
#include "task.h"
#include "taskdesc.h"
#include "wire.h"

#define RUNNING	8	/* tasks running on a peer, heard from */
#define TICKS	2000

static double
now_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *
uuid_n(int k)
{
	static char	buf[UUID_STRLEN + 1];

	snprintf(buf, sizeof buf, "00000000-0000-4000-8000-%012d", k);
	return buf;
}

static struct task *
finished(int k, int64_t at)
{
	struct task	*t = task_new(uuid_n(k), "job", 0);
	char		*outs[1] = { "out-1" };

	t->state = k < RUNNING ? TASK_RUNNING : TASK_TERMINATED;
	t->confirmed = k >= RUNNING;
	t->round = 1;
	t->ver = 3;
	t->submit_ms = at - 60000;
	t->end_ms = k < RUNNING ? -1 : at - 1000;
	snprintf(t->scheduled_by, sizeof t->scheduled_by, "peer");
	snprintf(t->running_on, sizeof t->running_on, "peer");
	if (k >= RUNNING)
		task_set_outputs(t, outs, 1);
	return t;
}

/* Parse one datagram's text (or die: a bench of rejections measures
 * nothing) and hand it to the node. */
static void
hear(struct node *n, struct peer_msg *m, const char *text, const char *from,
    int64_t now)
{
	char	err[128];

	if (peer_parse(text, strlen(text), m, err, sizeof err) == -1) {
		fprintf(stderr, "bench: %s\n", err);
		exit(1);
	}
	node_peer_msg(n, m, from, now);
	outbox_clear(node_outbox(n));
}

/* The last letter of an argument ("1000w"), or '\0'. */
static char
suffix(const char *arg)
{
	size_t	len = strlen(arg);

	return len == 0 ? '\0' : arg[len - 1];
}

/* Waiting for a node with a GPU, which this one is not. */
static struct task *
waiting(int k, int64_t at)
{
	struct task	*t = task_new(uuid_n(k), "job", 0);

	t->state = TASK_READY;
	t->ver = 1;
	t->submit_ms = t->ready_ms = at - 30000;
	t->req_tags = strdup("gpu");
	snprintf(t->scheduled_by, sizeof t->scheduled_by, "peer");
	return t;
}

static void
bench(int ntasks, int nwaiting)
{
	struct taskdesc_set	 set;
	struct taskdesc		 d;
	struct node_config	 cfg;
	struct node		*n;
	struct peer_msg		*m = malloc(sizeof *m);
	char			 text[512];
	int64_t			 t0 = 1700000000000LL, now;
	double			 a, b, c;
	int			 k, hl;

	memset(&set, 0, sizeof set);
	memset(&d, 0, sizeof d);
	snprintf(d.name, sizeof d.name, "job");
	snprintf(d.type, sizeof d.type, "job");
	d.noutputs = 1;
	taskdesc_add(&set, &d);
	node_config_default(&cfg);
	snprintf(cfg.name, sizeof cfg.name, "bench");
	n = node_new(&cfg, &set);
	for (k = 0; k < ntasks; k++)
		node_restore(n, finished(k, t0));
	for (k = 0; k < nwaiting; k++)
		node_restore(n, waiting(ntasks + k, t0));
	node_recover(n, t0);
	node_start(n, t0);
	outbox_clear(node_outbox(n));

	/* Ticks, each at the housekeeping interval. */
	now = t0;
	a = now_s();
	for (k = 0; k < TICKS; k++) {
		now += cfg.progress_interval_ms;
		node_tick(n, now);
		outbox_clear(node_outbox(n));
	}
	b = now_s();
	/* PROGRESS from the peer running the first tasks. */
	for (k = 0; k < TICKS; k++) {
		hl = peer_header(text, sizeof text, "bench", "peer", 1, 7000);
		snprintf(text + hl, sizeof text - hl, "PROGRESS %s %d 3 %lld",
		    uuid_n(k % RUNNING), k % 100, (long long)(t0 - 5000));
		hear(n, m, text, "10.0.0.2:7000", now + k);
	}
	c = now_s();
	printf("%8d tasks, %6d waiting: %8.2f us a tick, %8.2f us a "
	    "PROGRESS\n", ntasks, nwaiting, (b - a) / TICKS * 1e6,
	    (c - b) / TICKS * 1e6);
	node_free(n);
	taskdesc_clear(&set);
	free(m);
}

static void
count_alive(const struct peer *p, void *arg)
{
	*(int *)arg += p->alive;
}

/* Heartbeats from npeers idle peers, each in turn, as an idle pool. */
static void
bench_peers(int npeers)
{
	struct taskdesc_set	 set;
	struct node_config	 cfg;
	struct node		*n;
	struct peer_msg		*m = malloc(sizeof *m);
	char			 text[512], name[32], addr[32];
	int64_t			 t0 = 1700000000000LL, now = t0;
	int			 k, hl, rounds = TICKS * 10, alive = 0;
	double			 a, b;

	memset(&set, 0, sizeof set);
	node_config_default(&cfg);
	snprintf(cfg.name, sizeof cfg.name, "bench");
	n = node_new(&cfg, &set);
	node_recover(n, t0);
	node_start(n, t0);
	a = 0;
	for (k = 0; k < npeers + rounds; k++) {
		if (k == npeers)	/* all known: the idle pool's steady state */
			a = now_s();
		snprintf(name, sizeof name, "peer%d", k % npeers);
		snprintf(addr, sizeof addr, "10.0.%d.%d:7000",
		    k % npeers / 250, k % npeers % 250 + 2);
		hl = peer_header(text, sizeof text, "bench", name, 1, 7000);
		/* HEARTBEAT master epoch free slots volunteer reputation
		 * ntasks digest client_port speed life_s sent_ms beat_ms
		 * cores memory tags execs */
		snprintf(text + hl, sizeof text - hl, "HEARTBEAT %d 1 1 1 "
		    "dedicated 10 0 0 7001 1000 3600 %lld 5000 2 4096 "
		    "linux -", k % npeers == 0, (long long)now);
		hear(n, m, text, addr, now);
		now += 5000 / npeers + 1;
		if (k % npeers == 0)
			node_tick(n, now);
	}
	b = now_s();
	node_each_peer(n, count_alive, &alive);
	if (alive != npeers) {	/* then it measured their rejection */
		fprintf(stderr, "bench: %d of %d peers alive\n", alive,
		    npeers);
		exit(1);
	}
	printf("%8d peers, idle: %8.2f us a heartbeat\n", npeers,
	    (b - a) / rounds * 1e6);
	node_free(n);
	taskdesc_clear(&set);
	free(m);
}

int
main(int argc, char **argv)
{
	int	i;

	if (argc < 2) {
		bench(1000, 0);
		bench(10000, 0);
		bench(100000, 0);
		bench(RUNNING, 1000);
		bench(RUNNING, 10000);
		bench(RUNNING, 100000);
		bench_peers(10);
		bench_peers(100);
		bench_peers(1000);
	}
	for (i = 1; i < argc; i++)
		if (suffix(argv[i]) == 'w')
			bench(RUNNING, atoi(argv[i]));
		else if (suffix(argv[i]) == 'p')
			bench_peers(atoi(argv[i]));
		else
			bench(atoi(argv[i]), 0);
	return 0;
}
