/*
 * simnet.c -- a deterministic simulated LAN for the real core (see
 * simnet.h).  Same seed, same run, event for event.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer.h"
#include "simnet.h"
#include "task.h"
#include "wire.h"

struct sim_dgram {
	int64_t			 at;
	uint64_t		 seq;		/* FIFO among equal times */
	int			 from, to;
	char			*text;
	struct sim_dgram	*next;
};

struct sim_run {
	int			 node;
	char			 uuid[UUID_STRLEN + 1];
	int64_t			 end;		/* -1: never by itself */
	int			 stopping;
	int			 done;
	struct sim_run		*next;
};

static uint64_t seq;

static uint64_t
rnd(struct simnet *s)
{
	/* xorshift64*: small, seeded, reproducible. */
	s->seed ^= s->seed >> 12;
	s->seed ^= s->seed << 25;
	s->seed ^= s->seed >> 27;
	return s->seed * 2685821657736338717ULL;
}

void
sim_init(struct simnet *s, int n, struct taskdesc_set *descs, int64_t now)
{
	memset(s, 0, sizeof *s);
	s->n = n;
	s->descs = descs;
	s->now = now;
	s->latency_ms = 1;
	s->seed = 0x9e3779b97f4a7c15ULL;
	s->task_ms = 100;
}

void
sim_free(struct simnet *s)
{
	struct sim_dgram	*d;
	struct sim_run		*r;
	int			 i;

	while ((d = s->dgrams) != NULL) {
		s->dgrams = d->next;
		free(d->text);
		free(d);
	}
	while ((r = s->runs) != NULL) {
		s->runs = r->next;
		free(r);
	}
	for (i = 0; i < s->n; i++)
		node_free(&s->nodes[i]);
}

int
sim_index(struct simnet *s, const char *name)
{
	int	i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->nodes[i].cfg.name, name) == 0)
			return i;
	return -1;
}

static void
post(struct simnet *s, int from, int to, const char *body)
{
	struct sim_dgram	*d, **pp;
	char			 head[256];
	int			 hl;

	s->sent++;
	if (!s->alive[to] || s->group[from] != s->group[to] ||
	    (s->loss_percent > 0 &&
	    (int)(rnd(s) % 100) < s->loss_percent) ||
	    (s->drop != NULL && s->drop(s, from, to, body))) {
		s->lost++;
		return;
	}
	hl = peer_header(head, sizeof head, "sim", s->nodes[from].cfg.name,
	    (uint64_t)from + 1, 1000 + from);
	d = calloc(1, sizeof *d);
	d->text = malloc(hl + strlen(body) + 1);
	memcpy(d->text, head, hl);
	strcpy(d->text + hl, body);
	d->at = s->now + s->latency_ms;
	d->seq = seq++;
	d->from = from;
	d->to = to;
	for (pp = &s->dgrams; *pp != NULL &&
	    ((*pp)->at < d->at || ((*pp)->at == d->at && (*pp)->seq < d->seq));
	    pp = &(*pp)->next)
		;
	d->next = *pp;
	*pp = d;
}

static struct sim_run *
find_run(struct simnet *s, int node, const char *uuid)
{
	struct sim_run	*r;

	for (r = s->runs; r != NULL; r = r->next)
		if (r->node == node && !r->done && strcmp(r->uuid, uuid) == 0)
			return r;
	return NULL;
}

void
sim_flush(struct simnet *s, int i)
{
	struct outbox	*o = &s->nodes[i].out;
	size_t		 k;
	int		 j;

	for (k = 0; k < o->n; k++) {
		struct action *a = &o->v[k];
		struct sim_run *r;
		switch (a->type) {
		case ACT_BROADCAST:
			for (j = 0; j < s->n; j++)
				if (j != i)
					post(s, i, j, a->text);
			break;
		case ACT_UNICAST:
			if ((j = sim_index(s, a->peer)) >= 0)
				post(s, i, j, a->text);
			break;
		case ACT_START:
			r = calloc(1, sizeof *r);
			r->node = i;
			snprintf(r->uuid, sizeof r->uuid, "%s", a->uuid);
			r->end = s->task_ms < 0 ? -1 : s->now + s->task_ms;
			r->next = s->runs;
			s->runs = r;
			s->starts++;
			break;
		case ACT_STOP:
			if ((r = find_run(s, i, a->uuid)) != NULL) {
				r->stopping = 1;
				r->end = s->now + 1;
			}
			break;
		case ACT_LOG:
			if (s->verbose)
				printf("%8lld %s: %s\n", (long long)s->now,
				    s->nodes[i].cfg.name, a->text);
			break;
		default:
			break;
		}
	}
	outbox_clear(o);
}

void
sim_boot(struct simnet *s, int i, int reputation)
{
	struct node_config	cfg;

	memset(&cfg, 0, sizeof cfg);
	snprintf(cfg.name, sizeof cfg.name, "n%02d", i);
	cfg.slots = 1;
	cfg.max_attempts = 3;
	cfg.ageing_ms = 600000;
	cfg.reputation = reputation;
	cfg.dequeue_window_ms = 10;
	cfg.election_window_ms = 50;
	cfg.progress_interval_ms = 100;
	cfg.failure_timeout_ms = 1000;
	cfg.node_timeout_ms = 1000;
	node_init(&s->nodes[i], &cfg, s->descs);
	s->alive[i] = 1;
	node_recover(&s->nodes[i], s->now);
	node_start(&s->nodes[i], s->now);
	sim_flush(s, i);
}

void
sim_crash(struct simnet *s, int i)
{
	struct sim_run	*r;

	s->alive[i] = 0;
	for (r = s->runs; r != NULL; r = r->next)
		if (r->node == i)
			r->done = 1;
}

/* Finish run r: TERMINATED with outputs, or the exit of a stopped run. */
static void
end_run(struct simnet *s, struct sim_run *r)
{
	struct node		*n = &s->nodes[r->node];
	struct node_exit	 e = { 0, 0 };
	struct task		*t = node_find(n, r->uuid);

	r->done = 1;
	if (!r->stopping && t != NULL) {
		struct runner_msg m;
		static char ids[TASK_OUTPUTS_MAX][40];
		const struct taskdesc *d = taskdesc_find(s->descs, t->exec);
		int k;
		memset(&m, 0, sizeof m);
		m.type = RMSG_TERMINATED;
		m.noutputs = d != NULL ? d->noutputs : 0;
		for (k = 0; k < m.noutputs; k++) {
			snprintf(ids[k], sizeof ids[k], "%.8s-%s-%d",
			    r->uuid, n->cfg.name, k + 1);
			m.outputs[k] = ids[k];
		}
		node_runner_msg(n, r->uuid, &m, s->now);
	}
	node_runner_exit(n, r->uuid, &e, s->now);
	sim_flush(s, r->node);
}

void
sim_finish(struct simnet *s, int i, const char *uuid)
{
	struct sim_run	*r = find_run(s, i, uuid);

	if (r != NULL)
		end_run(s, r);
}

void
sim_run_until(struct simnet *s, int64_t t)
{
	for (;;) {
		int64_t		 next = t + 1;
		struct sim_run	*r, *rnext = NULL;
		int		 i, who = -1;

		if (s->dgrams != NULL && s->dgrams->at < next)
			next = s->dgrams->at;
		for (r = s->runs; r != NULL; r = r->next)
			if (!r->done && r->end >= 0 && r->end < next) {
				next = r->end;
				rnext = r;
			}
		for (i = 0; i < s->n; i++)
			if (s->alive[i] && s->nodes[i].timer >= 0 &&
			    s->nodes[i].timer < next) {
				next = s->nodes[i].timer;
				who = i;
			}
		if (next > t)
			break;
		s->now = next;
		if (who >= 0 && s->nodes[who].timer == next) {
			node_tick(&s->nodes[who], s->now);
			sim_flush(s, who);
		} else if (rnext != NULL && rnext->end == next) {
			end_run(s, rnext);
		} else if (s->dgrams != NULL && s->dgrams->at == next) {
			struct sim_dgram *d = s->dgrams;
			static struct peer_msg m;
			char err[128], addr[32];
			s->dgrams = d->next;
			if (s->alive[d->to] && peer_parse(d->text,
			    strlen(d->text), &m, err, sizeof err) == 0) {
				snprintf(addr, sizeof addr, "10.0.0.%d:%d",
				    d->from + 1, 1000 + d->from);
				node_peer_msg(&s->nodes[d->to], &m, addr,
				    s->now);
				sim_flush(s, d->to);
			}
			free(d->text);
			free(d);
		}
	}
	s->now = t;
}

int
sim_master_count(struct simnet *s, const char **name)
{
	int	i, c = 0;

	for (i = 0; i < s->n; i++) {
		if (s->alive[i] && node_is_master(&s->nodes[i])) {
			c++;
			if (name != NULL)
				*name = s->nodes[i].cfg.name;
		}
	}
	return c;
}

int
sim_schedule(struct simnet *s, int i, const char *exec, int prio, int nbind,
    const struct node_binding *bind, char *uuid_out)
{
	struct node_schedule_req	req;
	char				err[256];
	static unsigned			counter;
	int				rc;

	memset(&req, 0, sizeof req);
	req.exec = exec;
	req.prio = prio;
	req.path = strcmp(exec, "import") == 0 ? "/data" : NULL;
	req.nbind = nbind;
	req.bind = bind;
	req.client = "sim";
	snprintf(uuid_out, UUID_STRLEN + 1, "00000000-0000-4000-8000-%012u",
	    ++counter);
	rc = node_schedule(&s->nodes[i], &req, uuid_out, s->now, err,
	    sizeof err);
	if (rc == -1 && s->verbose)
		printf("schedule: %s\n", err);
	sim_flush(s, i);
	return rc;
}

int
sim_starts(struct simnet *s, const char *uuid, char *last_node)
{
	struct sim_run	*r;
	int		 c = 0;
	int64_t		 newest = -1;

	(void)newest;
	for (r = s->runs; r != NULL; r = r->next) {
		if (strcmp(r->uuid, uuid) != 0)
			continue;
		if (c++ == 0 && last_node != NULL)	/* list is newest first */
			strcpy(last_node, s->nodes[r->node].cfg.name);
	}
	return c;
}
