/*
 * simnet.c -- a deterministic simulated LAN for the real core (see
 * simnet.h).  One event queue (evqueue.c) orders datagram arrivals,
 * node timers and the ends of simulated runs by (time, order posted);
 * nothing else decides the order, so the same seed replays the same
 * run, event for event.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evqueue.h"
#include "guard.h"
#include "peer.h"
#include "seal.h"
#include "simnet.h"
#include "task.h"
#include "wire.h"

struct sim_run {
	int			 node;
	char			 uuid[UUID_STRLEN + 1];
	int64_t			 end;		/* -1: never by itself */
	int			 stopping;
	int			 crash;		/* ends without a result */
	int			 done;
	int			 pending;	/* its events in the queue */
	int64_t			 left;		/* suspended: time still to run */
	/* Its work (ms at speed 1): the task's, done when its progress
	 * last began (restored or resumed), and since when (-1: stopped);
	 * its checkpoint events' generation. */
	int64_t			 work_ms, work_from, work_at, since;
	char			 key[UUID_STRLEN + 1];	/* whose work:
					 * the task's, a tail replica's too */
	int			 gen;
	struct sim_run		*next;
};

/*
 * A datagram, sealed and opened once, shared by its recipients (each
 * one's guard admits it or not).  A broadcast keeps its parse, for its
 * many recipients; a unicast keeps its text and is parsed again at its
 * one delivery: a parse is 8.5 KB, and a 1000-node pool has votes by the
 * ten thousand in flight.
 */
struct sim_msg {
	int			 refs;
	int			 ok;		/* it parsed */
	char			 addr[32];
	uint64_t		 seq;		/* sealed: its sequence number */
	int64_t			 sent_ms;	/* and its sender's clock */
	int			 to;		/* a unicast's receiver, or -1 */
	char			*body;		/* for drop filters */
	char			*opened;	/* what was parsed */
	size_t			 openedlen;
	struct peer_msg		*m;		/* a broadcast's parse */
};

static void *
enough(void *p)
{
	if (p == NULL) {
		fprintf(stderr, "volery-sim: out of memory\n");
		exit(2);
	}
	return p;
}

void *
sim_calloc(size_t n, size_t size)
{
	return enough(calloc(n > 0 ? n : 1, size > 0 ? size : 1));
}

void *
sim_realloc(void *p, size_t size)
{
	return enough(realloc(p, size > 0 ? size : 1));
}

char *
sim_strdup(const char *text)
{
	return enough(strdup(text));
}

static void
msg_release(struct sim_msg *msg)
{
	if (--msg->refs == 0) {
		free(msg->body);
		free(msg->opened);
		free(msg->m);
		free(msg);
	}
}

struct tally_slot {
	char			 uuid[UUID_STRLEN + 1];
	int			 starts;
	int			 last;
	char			*final;		/* the end first told final */
	unsigned char		*told;		/* by node: told it final */
	struct task		*rec;		/* the record first retired */
	/* -F: the honest nodes that voted for the liar's claimed run
	 * (liar.c), by node. */
	unsigned char		*for_liar_run;
};

struct sim_tally {
	struct tally_slot	*v;
	size_t			 cap, n;
};

/* ---- small helpers ---------------------------------------------------- */

uint64_t
sim_random(struct simnet *s)
{
	/* xorshift64*: small, seeded, reproducible. */
	s->seed ^= s->seed >> 12;
	s->seed ^= s->seed << 25;
	s->seed ^= s->seed >> 27;
	return s->seed * 2685821657736338717ULL;
}

/* Draws from the workload's stream instead of the run's, or back. */
static void
swap_streams(struct simnet *s)
{
	uint64_t	run = s->seed;

	s->seed = s->work_seed;
	s->work_seed = run;
}

uint64_t
sim_work_random(struct simnet *s)
{
	uint64_t	r;

	swap_streams(s);
	r = sim_random(s);
	swap_streams(s);
	return r;
}

static void
trace(struct simnet *s, int node, const char *text)
{
	struct sim_trace *e = &s->trace[s->ntrace++ % SIM_TRACE];
	size_t		  len = strnlen(text, sizeof e->text - 1);

	e->at = s->now;
	e->node = node;
	memcpy(e->text, text, len);
	e->text[len] = '\0';
	if (s->verbose)
		printf("%10lld %s: %s\n", (long long)s->now,
		    node >= 0 ? node_name(s->nodes[node]) : "sim", text);
}

void
sim_trace_line(struct simnet *s, int k, char *buf, size_t size)
{
	const struct sim_trace *e = &s->trace[(s->ntrace + k) % SIM_TRACE];

	snprintf(buf, size, "%10lld %s: %s", (long long)e->at, e->node >= 0 ?
	    node_name(s->nodes[e->node]) : "sim", e->text);
}

void
sim_violation(struct simnet *s, const char *fmt, ...)
{
	char	buf[900];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (s->violations++ == 0)
		snprintf(s->violation, sizeof s->violation, "at %lld ms: %s",
		    (long long)s->now, buf);
	trace(s, -1, buf);
}

static struct tally_slot *
tally(struct simnet *s, const char *uuid)
{
	struct sim_tally	*t = s->tally;
	size_t			 i;
	uint64_t		 h = 1469598103934665603ULL;
	const char		*p;

	if ((t->n + 1) * 2 > t->cap) {
		struct sim_tally bigger = { NULL, t->cap ? t->cap * 2 : 1024, 0 };
		bigger.v = sim_calloc(bigger.cap, sizeof *bigger.v);
		for (i = 0; i < t->cap; i++) {
			if (t->v[i].uuid[0] == '\0')
				continue;
			h = 1469598103934665603ULL;
			for (p = t->v[i].uuid; *p; p++)
				h = (h ^ (unsigned char)*p) * 1099511628211ULL;
			size_t j = h & (bigger.cap - 1);
			while (bigger.v[j].uuid[0] != '\0')
				j = (j + 1) & (bigger.cap - 1);
			bigger.v[j] = t->v[i];
			bigger.n++;
		}
		free(t->v);
		*t = bigger;
		h = 1469598103934665603ULL;
	}
	for (p = uuid; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	for (i = h & (t->cap - 1); t->v[i].uuid[0] != '\0';
	    i = (i + 1) & (t->cap - 1))
		if (strcmp(t->v[i].uuid, uuid) == 0)
			return &t->v[i];
	snprintf(t->v[i].uuid, sizeof t->v[i].uuid, "%s", uuid);
	t->v[i].last = -1;
	t->n++;
	return &t->v[i];
}

/* ---- set-up ------------------------------------------------------------ */

void
sim_init(struct simnet *s, int n, struct taskdesc_set *descs, int64_t now)
{
	uint8_t	key[SEAL_KEY_BYTES];
	int	i;

	memset(s, 0, sizeof *s);
	s->n = n;
	s->nodes = sim_calloc(SIM_MAXNODES, sizeof *s->nodes);
	for (i = 0; i < SIM_MAXNODES; i++)
		s->timer[i] = -1;
	s->descs = descs;
	s->now = now;
	s->latency_ms = 1;
	s->wake_ms = 3000;	/* a desktop back from suspend */
	s->seed = 0x9e3779b97f4a7c15ULL;
	s->task_ms = 100;
	s->ckpts.every_ms = -1;
	s->ckpts.bytes = 1 << 20;
	s->dgrams = sim_calloc(1, sizeof *s->dgrams);
	s->tally = sim_calloc(1, sizeof *s->tally);
	node_config_default(&s->cfg);
	s->cfg.slots = 1;
	s->cfg.max_attempts = 3;
	s->cfg.ageing_ms = 600000;
	s->cfg.dequeue_window_ms = 10;
	s->cfg.election_window_ms = 50;
	s->cfg.progress_interval_ms = 100;
	s->cfg.failure_timeout_ms = 1000;
	s->cfg.node_timeout_ms = 1000;
	s->cfg.quiet_heartbeat_ms = 2500;
	s->cfg.max_clock_skew_ms = 30000;	/* as the shell's default */
	/* Any fixed key: what is checked is the codec, not the secret. */
	memset(key, 0x5e, sizeof key);
	keyring_add(&s->ring, key);
}

void
sim_free(struct simnet *s)
{
	struct sim_run	*r;
	int		 i;

	while (s->dgrams->n > 0) {
		struct sim_ev e = evq_pop(s->dgrams);
		if (e.kind == EV_DGRAM)
			msg_release(e.msg);
		if (e.kind == EV_CKPT_COPY)
			free(e.copy);
	}
	evq_free(s->dgrams);
	simck_free(&s->ckpts);
	free(s->dgrams);
	while ((r = s->runs) != NULL) {
		s->runs = r->next;
		free(r);
	}
	for (i = 0; (size_t)i < s->tally->cap; i++) {
		free(s->tally->v[i].final);
		free(s->tally->v[i].told);
		free(s->tally->v[i].for_liar_run);
		task_free(s->tally->v[i].rec);
	}
	free(s->tally->v);
	free(s->tally);
	for (i = 0; i < SIM_MAXNODES; i++) {
		node_free(s->nodes[i]);
		free(s->disk[i].buf);
		free(s->members[i]);
		s->members[i] = NULL;
		free(s->stay[i]);
		s->stay[i] = NULL;
		guard_free(&s->guard[i]);
		free(s->ucounter[i]);
	}
	free(s->nodes);
}

int
sim_index(struct simnet *s, const char *name)
{
	int	i;

	/* Names are n%02d .. : parse rather than search. */
	if (name[0] == 'n' && (i = atoi(name + 1)) >= 0 && i < s->n &&
	    strcmp(node_name(s->nodes[i]), name) == 0)
		return i;
	for (i = 0; i < s->n; i++)
		if (strcmp(node_name(s->nodes[i]), name) == 0)
			return i;
	return -1;
}

/* ---- the network ------------------------------------------------------ */

/*
 * Encode a datagram of node `from` once: through the same codec as the
 * server's (seal.c), unless the simulated pool runs insecure (-U).
 */
static struct sim_msg *
make_msg(struct simnet *s, int from, const char *body, int to)
{
	struct sim_msg	*msg = sim_calloc(1, sizeof *msg);
	static char	 text[DATAGRAM_MAX + 256], opened[DATAGRAM_MAX + 1];
	static uint8_t	 frame[SEAL_FRAME_MAX];
	struct seal_hdr	 h;
	struct seal_addr sa;
	char		 err[128];
	const char	*name = node_name(s->nodes[from]);
	const char	*parsed = NULL;
	int		 hl, n;

	hl = peer_header(text, sizeof text, "sim", name, s->incarnation[from],
	    1000 + from);
	snprintf(text + hl, sizeof text - hl, "%s", body);
	msg->body = sim_strdup(body);
	msg->to = to;
	if (s->insecure) {
		parsed = text;
		n = (int)strlen(text);
	} else {
		/* As peers.c: a counter for broadcasts, one per unicast
		 * destination. */
		if (to < 0)
			msg->seq = ++s->counter[from] << 1 | 1;
		else {
			if (s->ucounter[from] == NULL)
				s->ucounter[from] = sim_calloc(SIM_MAXNODES,
				    sizeof *s->ucounter[from]);
			msg->seq = ++s->ucounter[from][to] << 1;
		}
		sa.sender = name;
		sa.incarnation = s->incarnation[from];
		sa.seq = msg->seq;
		sa.sent_ms = msg->sent_ms = sim_local(s, from);
		sa.to = to < 0 ? NULL : node_name(s->nodes[to]);
		n = seal(&s->ring.k[0], &sa, text, strlen(text), frame,
		    sizeof frame);
		if (n > 0 && seal_peek(frame, (size_t)n, &h) == 0 &&
		    (n = seal_open(&s->ring, frame, (size_t)n, &h, sa.to,
		    opened, sizeof opened)) >= 0)
			parsed = opened;
	}
	if (parsed != NULL) {
		msg->m = sim_calloc(1, sizeof *msg->m);
		msg->ok = peer_parse(parsed, (size_t)n, msg->m, err,
		    sizeof err) == 0;
		if (to >= 0) {
			msg->opened = enough(malloc((size_t)n));
			memcpy(msg->opened, parsed, (size_t)n);
			msg->openedlen = (size_t)n;
			free(msg->m);
			msg->m = NULL;
		}
	}
	snprintf(msg->addr, sizeof msg->addr, "10.0.%d.%d:%d",
	    (from + 1) / 256, (from + 1) % 256, 1000 + from);
	return msg;
}

int64_t
sim_local(const struct simnet *s, int i)
{
	return s->now + s->skew[i];
}

static void
post(struct simnet *s, int from, int to, struct sim_msg *msg)
{
	struct sim_ev	e;
	int		copies = 1;

	s->sent++;
	if (!s->alive[to] || s->group[from] != s->group[to] ||
	    s->cut_out[from] || s->cut_in[to] ||
	    (s->loss_percent > 0 &&
	    (int)(sim_random(s) % 100) < s->loss_percent) ||
	    (s->drop != NULL && s->drop(s, from, to, msg->body))) {
		s->lost++;
		return;
	}
	if (s->dup_percent > 0 && (int)(sim_random(s) % 100) < s->dup_percent)
		copies = 2;
	while (copies-- > 0) {
		memset(&e, 0, sizeof e);
		e.kind = EV_DGRAM;
		e.from = from;
		e.to = to;
		e.msg = msg;
		msg->refs++;
		e.at = s->now + s->latency_ms + (s->jitter_ms > 0 ?
		    (int64_t)(sim_random(s) % (uint64_t)(s->jitter_ms + 1)) : 0);
		evq_push(s->dgrams, &e);
	}
	/* An attacker captured it: the same bytes, later, to anyone. */
	if (s->replay_percent > 0 &&
	    (int)(sim_random(s) % 100) < s->replay_percent) {
		e.to = (int)(sim_random(s) % (uint64_t)s->n);
		e.at = s->now + 1 + (int64_t)(sim_random(s) % 10000);
		if (e.to != from) {
			msg->refs++;
			evq_push(s->dgrams, &e);
		}
	}
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

/*
 * -m: Anglano et al.'s CPU availability, three states of a node's
 * speed, 100 %, 50 % and 33 % (their Fig. 4).  Their transition
 * probabilities, measured per machine, are not published: ours keep a
 * node mostly whole and let a loaded spell last a few steps.
 */
static const double cpu_level[3] = { 1.0, 0.5, 1.0 / 3 };
static const double cpu_next[3][3] = {
	{ 0.90, 0.07, 0.03 }, { 0.25, 0.65, 0.10 }, { 0.20, 0.15, 0.65 },
};

/* Node i's speed now: its own, times its CPU availability (-m). */
static double
speed_now(const struct simnet *s, int i)
{
	double	speed = s->speed[i] > 0 ? s->speed[i] : 1;

	return s->cpu_step > 0 ? speed * cpu_level[s->cpu_state[i]] : speed;
}

/* A run's time on node i, at its speed. */
static int64_t
scaled(const struct simnet *s, int i, int64_t ms)
{
	if (s->cpu_step > 0)
		return (int64_t)((double)ms / speed_now(s, i));
	return s->speed[i] > 0 ? (int64_t)((double)ms / s->speed[i]) : ms;
}

/* The work run r has done by now. */
static int64_t
run_work(const struct simnet *s, const struct sim_run *r)
{
	double	speed = speed_now(s, r->node);
	int64_t	w = r->work_at;

	if (r->since >= 0 && s->now > r->since)
		w += (int64_t)((s->now - r->since) * speed);
	return w < r->work_ms ? w : r->work_ms;
}

/* The CPU r used is counted as it stops for good (-i). */
static void
run_over(struct simnet *s, struct sim_run *r, int terminated)
{
	int64_t	w = terminated ? r->work_ms : run_work(s, r);

	s->ckpts.cpu_ms += w > r->work_from ? w - r->work_from : 0;
	if (terminated && simck_needed(s, r->key))
		s->ckpts.need_ms += r->work_ms;
	r->since = -1;
}

/* Its next checkpoint, once its work reaches the next interval. */
static void
schedule_ckpt(struct simnet *s, struct sim_run *r)
{
	struct sim_ev	e;
	int64_t		every = s->ckpts.every_ms, w = run_work(s, r), next;
	int64_t		delay;

	r->gen++;
	if (every <= 0 || r->since < 0)
		return;
	next = (w / every + 1) * every;
	if (next >= r->work_ms)
		return;
	memset(&e, 0, sizeof e);
	e.kind = EV_CKPT;
	/* At least a ms on: on a fast node the work a ms does may be less
	 * than the ms to go, and a checkpoint due now would be again. */
	delay = scaled(s, r->node, next - w);
	e.at = (r->since > s->now ? r->since : s->now) + (delay > 0 ? delay :
	    1);
	e.to = r->node;
	e.from = r->gen;
	e.run = r;
	r->pending++;
	evq_push(s->dgrams, &e);
}

/* Run r writes a checkpoint: the node keeps it, the model knows its
 * work. */
static void
run_checkpoint(struct simnet *s, struct sim_run *r)
{
	static const char	hash[] = "000000000000000000000000000000000"
				    "0000000000000000000000000000000";
	int64_t			w = run_work(s, r), seq;

	seq = node_checkpoint_made(s->nodes[r->node], r->uuid,
	    s->ckpts.bytes, hash, "checkpoint", sim_local(s, r->node));
	if (seq > 0)
		simck_made(s, r->node, r->uuid, seq, w);
	sim_flush(s, r->node);
	schedule_ckpt(s, r);
}

static void
schedule_runend(struct simnet *s, struct sim_run *r)
{
	struct sim_ev	e;

	if (r->end < 0)
		return;
	memset(&e, 0, sizeof e);
	e.kind = EV_RUNEND;
	e.at = r->end;
	e.to = r->node;
	e.run = r;
	r->pending++;
	evq_push(s->dgrams, &e);
}

/*
 * "State node=<runner> outputs=<list> reason=<text>" of a PROGRESS line,
 * into key: what a subscriber told the task ended relies on.  Returns 1
 * if the line tells a final (confirmed) end.
 */
static int
progress_end(const char *line, char *uuid, char *key, size_t size)
{
	char		 state[32] = "", node[64] = "", outs[2048] = "";
	const char	*p, *reason;
	enum task_state	 st;

	if (sscanf(line, "PROGRESS %36s %*d %31s", uuid, state) != 2)
		return -1;
	if ((p = strstr(line, " node=")) != NULL)
		sscanf(p + 6, "%63s", node);
	if ((p = strstr(line, " outputs=")) != NULL)
		sscanf(p + 9, "%2047s", outs);
	reason = (p = strstr(line, " reason=")) != NULL ? p + 8 : "";
	snprintf(key, size, "%s node=%s outputs=%s reason=%.*s", state, node,
	    outs, (int)strcspn(reason, "\n"), reason);
	return task_state_parse(state, &st) == 0 && task_is_final(st);
}

/* Each input of node i's task uuid is an output of the result told
 * final upstream. */
static void
check_inputs(struct simnet *s, int i, const char *uuid, const char *when)
{
	const struct task	*t = node_find(s->nodes[i], uuid);
	int			 k;

	for (k = 0; t != NULL && k < t->ninputs; k++) {
		const struct task_input *in = &t->inputs[k];
		struct tally_slot *up = tally(s, in->from);
		if (in->dataset == NULL || up->final == NULL ||
		    strncmp(up->final, "Terminated ", 11) != 0 ||
		    strstr(up->final, in->dataset) == NULL)
			sim_violation(s, "%s: task %s %s with input %d %s, not "
			    "an output of the result told final for %s "
			    "('%s')", node_name(s->nodes[i]), uuid, when, k + 1,
			    in->dataset != NULL ? in->dataset : "unbound",
			    in->from, up->final != NULL ? up->final : "none");
	}
}

/* -F: node i sent text; a vote (or proposal) for the liar's claimed run
 * is counted. */
static void
note_liar_run_vote(struct simnet *s, int i, const char *text)
{
	struct tally_slot	*ts;
	char			 uuid[UUID_STRLEN + 1];
	const char		*id;

	if (i == s->liar || strstr(text, "LIARRUN") == NULL ||
	    strstr(text, " conf=1") != NULL ||
	    (strncmp(text, "VOTE ", 5) != 0 &&
	    strncmp(text, "STATE ", 6) != 0) ||
	    (id = strstr(text, " id=")) == NULL ||
	    sscanf(id + 4, "%36s", uuid) != 1)
		return;
	ts = tally(s, uuid);
	if (ts->for_liar_run == NULL)
		ts->for_liar_run = sim_calloc(SIM_MAXNODES, 1);
	ts->for_liar_run[i] = 1;
}

/* The liar's claimed run told final by node i: a majority of the
 * fewest nodes ever up at once (the liar among them) voted for it. */
static void
check_liar_run(struct simnet *s, int i, const char *uuid,
    struct tally_slot *ts)
{
	int	j, votes = 1;

	for (j = 0; ts->for_liar_run != NULL && j < s->n; j++)
		votes += ts->for_liar_run[j];
	if (votes < s->fewest_up / 2 + 1)
		sim_violation(s, "task %s: %s told the liar's claimed run, "
		    "for which %d of the %d needed voted", uuid,
		    node_name(s->nodes[i]), votes, s->fewest_up / 2 + 1);
}

/*
 * Online, at every line a subscriber of node i would get: a task told
 * ended (confirmed) is told the same end by every node, and node i tells
 * nothing else of it afterwards.
 */
static void
check_notify(struct simnet *s, int i, const char *line)
{
	char			 uuid[UUID_STRLEN + 1], key[3000];
	struct tally_slot	*ts;
	int			 final;

	if ((final = progress_end(line, uuid, key, sizeof key)) == -1) {
		sim_violation(s, "%s told a bad line: %s",
		    node_name(s->nodes[i]), line);
		return;
	}
	ts = tally(s, uuid);
	if (final && ts->final == NULL)
		ts->final = sim_strdup(key);
	else if (final && strcmp(ts->final, key) != 0)
		sim_violation(s, "task %s: %s told '%s', another node told "
		    "'%s'", uuid, node_name(s->nodes[i]), key, ts->final);
	if (ts->told != NULL && ts->told[i] && strcmp(ts->final, key) != 0)
		sim_violation(s, "task %s: %s told '%s' after telling '%s'",
		    uuid, node_name(s->nodes[i]), key, ts->final);
	/* A result told final ran on its upstreams' final results. */
	if (final && strncmp(key, "Terminated ", 11) == 0)
		check_inputs(s, i, uuid, "told final");
	/* -F: no forgery is ever told final, and the liar's claim of a
	 * run is told final only once a majority voted for it. */
	if (final && sim_forged(key))
		sim_violation(s, "task %s: %s told the liar's '%s'", uuid,
		    node_name(s->nodes[i]), key);
	if (final && strstr(key, "LIARRUN") != NULL)
		check_liar_run(s, i, uuid, tally(s, uuid));
	/* -r: a verified task's result is never one the liar made up for
	 * its replica (its replica's own end may be). */
	if (final && strstr(key, "LIE") != NULL &&
	    strncmp(key, "Terminated ", 11) == 0 &&
	    strcmp(uuid + UUID_STRLEN - 2, "a0") == 0)
		sim_violation(s, "task %s: %s told a result the liar made up "
		    "for its replica: '%s'", uuid, node_name(s->nodes[i]), key);
	ts = tally(s, uuid);	/* the table may have grown */
	if (final) {
		if (ts->told == NULL)
			ts->told = sim_calloc(SIM_MAXNODES, 1);
		ts->told[i] = 1;
	}
}

/* A task of an array starts: no more of it may run at once than its
 * limit says (on a calm network; -L). */
static void
check_array(struct simnet *s, const struct task *t)
{
	struct sim_run	*r;
	struct task	*u;
	int		 running = 1;

	for (r = s->runs; r != NULL; r = r->next) {
		if (r->done || r->stopping || !s->alive[r->node])
			continue;
		u = node_find(s->nodes[r->node], r->uuid);
		running += u != NULL && strcmp(u->array, t->array) == 0;
	}
	if (running > s->array_most)
		s->array_most = running;
	if (s->array_strict && running > t->array_max)
		sim_violation(s, "task %s starts the array's %dth run at once, "
		    "over its limit of %d", t->uuid, running, t->array_max);
}

/* Checks at the moment a node starts a task. */
static void
check_start(struct simnet *s, int i, const char *uuid)
{
	struct task		*t = node_find(s->nodes[i], uuid);
	struct tally_slot	*ts;

	if (t == NULL) {
		sim_violation(s, "%s started unknown task %s",
		    node_name(s->nodes[i]), uuid);
		return;
	}
	check_inputs(s, i, uuid, "started");
	ts = tally(s, uuid);	/* the table may have grown */
	ts->starts++;
	ts->last = i;
	if (t->array[0] != '\0' && t->array_max > 0)
		check_array(s, t);
	if (t->req_tags != NULL && task_names_have(t->req_tags, "gpu") &&
	    i >= s->gpu_nodes)
		sim_violation(s, "%s started %s, which needs the tag gpu it "
		    "has not", node_name(s->nodes[i]), uuid);
}

/*
 * Node i moved a task to its history (-W): only a settled end leaves,
 * the same on every node, and the one told final if one was.
 */
static void
check_retire(struct simnet *s, int i, const char *uuid, const char *text)
{
	struct tally_slot	*ts;
	struct task		*t;
	char			 err[128], told[256];

	if ((t = wire_task_decode(text, strlen(text), err,
	    sizeof err)) == NULL) {
		sim_violation(s, "%s retired %s: %s", node_name(s->nodes[i]),
		    uuid, err);
		return;
	}
	if (!task_is_settled(t))
		sim_violation(s, "%s retired %s while %s%s",
		    node_name(s->nodes[i]), uuid, task_state_name(t->state),
		    t->confirmed ? "" : " (unconfirmed)");
	ts = tally(s, uuid);
	snprintf(told, sizeof told, "%s node=%s ", task_state_name(t->state),
	    t->running_on);
	if (ts->final != NULL && strncmp(ts->final, told, strlen(told)) != 0)
		sim_violation(s, "%s retired %s as '%s', told final '%s'",
		    node_name(s->nodes[i]), uuid, told, ts->final);
	if (ts->rec == NULL)
		ts->rec = t;
	else {
		if (ts->rec->state != t->state ||
		    strcmp(ts->rec->running_on, t->running_on) != 0)
			sim_violation(s, "%s retired %s as %s on %s, another "
			    "node as %s on %s", node_name(s->nodes[i]), uuid,
			    task_state_name(t->state), t->running_on,
			    task_state_name(ts->rec->state),
			    ts->rec->running_on);
		task_free(t);
	}
}

const struct task *
sim_record(struct simnet *s, int i, const char *uuid)
{
	const struct task	*t = node_find(s->nodes[i], uuid);
	struct tally_slot	*ts;

	if (t != NULL || s->cfg.retention_ms <= 0 ||
	    s->cfg.retention_ms >= 86400000)
		return t;
	ts = tally(s, uuid);
	return ts->rec;
}

/*
 * With -v, every action a node asks for, in the order it asked: the
 * trace that proves a refactor of the core changes nothing
 * (tools/sim-traces.sh).  Logs are traced always, for violations.
 */
static void
trace_action(struct simnet *s, int i, const struct action *a)
{
	static const char *names[] = { "log", "journal", "notify", "start",
	    "stop", "suspend", "resume", "timer", "broadcast", "unicast",
	    "members", "retire", "forget", "check", "throttle", "unthrottle",
	    "quarantine", "ckpt_fetch", "stay" };
	char	text[DATAGRAM_MAX + 64];
	size_t	len;

	if (!s->verbose || a->type == ACT_LOG)
		return;
	switch (a->type) {
	case ACT_TIMER:
		snprintf(text, sizeof text, "> timer %lld", (long long)a->when);
		break;
	case ACT_BROADCAST:
		snprintf(text, sizeof text, "> broadcast %s", a->text);
		break;
	case ACT_UNICAST:
		snprintf(text, sizeof text, "> unicast %s %s", a->peer,
		    a->text);
		break;
	case ACT_NOTIFY:
		snprintf(text, sizeof text, "> notify %s", a->text);
		break;
	case ACT_STAY:
		snprintf(text, sizeof text, "> stay %s", a->text);
		break;
	case ACT_MEMBERS:
		snprintf(text, sizeof text, "> members %.*s", (int)sizeof text -
		    16, a->text);
		for (len = 0; text[len] != '\0'; len++)
			if (text[len] == '\n' && text[len + 1] != '\0')
				text[len] = ' ';
		break;
	default:
		snprintf(text, sizeof text, "> %s %s", names[a->type],
		    a->uuid);
		break;
	}
	len = strlen(text);
	if (len > 0 && text[len - 1] == '\n')
		text[len - 1] = '\0';
	printf("%10lld %s: %s\n", (long long)s->now, node_name(s->nodes[i]),
	    text);
}

/* ---- the disk --------------------------------------------------------- */

static void
disk_put(struct sim_disk *d, const char *bytes, size_t len)
{
	if (d->len + len > d->cap) {
		d->cap = d->cap == 0 ? 65536 : d->cap;
		while (d->len + len > d->cap)
			d->cap *= 2;
		d->buf = sim_realloc(d->buf, d->cap);
	}
	memcpy(d->buf + d->len, bytes, len);
	d->len += len;
}

/* The journal holds exactly node i's map, as after the server's
 * compaction (and at its start). */
static void
disk_rewrite(struct simnet *s, int i)
{
	struct sim_disk	*d = &s->disk[i];
	char		 framed[RECORD_LINE_MAX + 16];
	struct task	**v;
	size_t		  n, k;
	int		  len;

	d->len = d->records = 0;
	if ((v = node_tasks_sorted(s->nodes[i], &n)) == NULL)
		return;
	for (k = 0; k < n; k++)
		if ((len = wire_task_frame(v[k], framed, sizeof framed)) > 0) {
			disk_put(d, framed, len);
			d->records++;
		}
	free(v);
}

/* journal_append, then maybe_compact (with a floor low enough that
 * simulated runs compact too). */
static void
disk_append(struct simnet *s, int i, const struct task *t)
{
	struct sim_disk		*d = &s->disk[i];
	struct node_status	 st;
	char			 framed[RECORD_LINE_MAX + 16];
	int			 len;

	if ((len = wire_task_frame(t, framed, sizeof framed)) <= 0) {
		sim_violation(s, "task %s: its record does not frame", t->uuid);
		return;
	}
	disk_put(d, framed, len);
	d->records++;
	node_status(s->nodes[i], &st);
	if (d->records >= 2 * st.ntasks + 64)
		disk_rewrite(s, i);
}

/* A crash mid-write: half of a record, without its newline.  The half
 * is copied out first: appending it may move the buffer it is in. */
static void
disk_tear(struct simnet *s, int i)
{
	struct sim_disk	*d = &s->disk[i];
	char		 half[RECORD_LINE_MAX + 16];
	size_t		 start, n;

	if (d->len < 2)
		return;
	for (start = d->len - 1; start > 0 && d->buf[start - 1] != '\n';
	    start--)
		;
	if ((n = (d->len - start) / 2) > sizeof half)
		n = sizeof half;
	memcpy(half, d->buf + start, n);
	disk_put(d, half, n);
}

struct disk_load {
	struct simnet	*s;
	int		 i;
};

static int
disk_restore(struct task *t, void *arg)
{
	struct disk_load	*l = arg;

	return node_restore(l->s->nodes[l->i], t);
}

static void
disk_damaged(size_t lineno, enum wire_damage kind, const char *why,
    size_t len, void *arg)
{
	struct disk_load	*l = arg;

	/* A torn last line is what a crash leaves; anything else means the
	 * codec wrote what it cannot read back. */
	if (kind != DAMAGE_TORN)
		sim_violation(l->s, "n%02d: journal line %zu does not load: %s",
		    l->i, lineno, why);
}

static void
disk_load(struct simnet *s, int i)
{
	struct disk_load	 l = { s, i };
	struct wire_journal_scan scan = { disk_restore, disk_damaged, &l, 0,
	    0 };

	wire_journal_scan(s->disk[i].buf, s->disk[i].len, &scan);
}

void
sim_inject(struct simnet *s, int i, const char *body)
{
	struct sim_msg	*msg = make_msg(s, i, body, -1);
	int		 j;

	msg->refs++;
	for (j = 0; j < s->n; j++)
		if (j != i)
			post(s, i, j, msg);
	msg_release(msg);
}

void
sim_flush(struct simnet *s, int i)
{
	struct outbox	*o = node_outbox(s->nodes[i]);
	size_t		 k;
	int		 j;

	for (k = 0; k < o->n; k++) {
		struct action *a = &o->v[k];
		struct sim_run *r;
		struct task *t;
		struct sim_ev e;
		struct sim_msg *msg;
		trace_action(s, i, a);
		if (s->identities && (a->type == ACT_BROADCAST ||
		    a->type == ACT_UNICAST))
			note_liar_run_vote(s, i, a->text);
		switch (a->type) {
		case ACT_BROADCAST:
			msg = make_msg(s, i, a->text, -1);
			msg->refs++;
			for (j = 0; j < s->n; j++)
				if (j != i)
					post(s, i, j, msg);
			msg_release(msg);
			break;
		case ACT_UNICAST:
			if ((j = sim_index(s, a->peer)) >= 0) {
				msg = make_msg(s, i, a->text, j);
				msg->refs++;
				post(s, i, j, msg);
				msg_release(msg);
			}
			break;
		case ACT_START:
			check_start(s, i, a->uuid);
			t = node_find(s->nodes[i], a->uuid);
			if (t != NULL && s->lacks[i] &&
			    strcmp(t->exec, "segmentation") == 0) {
				/* Not installed here: it cannot start (as the
				 * shell reports it).  a may move: copy. */
				struct node_exit ex = { -1, 0, -1, -1, NULL };
				char uuid[UUID_STRLEN + 1];
				memcpy(uuid, a->uuid, sizeof uuid);
				node_runner_exit(s->nodes[i], uuid, &ex,
				    sim_local(s, i));
				break;
			}
			r = sim_calloc(1, sizeof *r);
			r->node = i;
			snprintf(r->uuid, sizeof r->uuid, "%s", a->uuid);
			t = node_find(s->nodes[i], a->uuid);
			if (t != NULL) {
				int64_t since = s->free_since[i] > t->ready_ms ?
				    s->free_since[i] : t->ready_ms;
				s->sched_ms += (double)(s->now - since);
				s->sched_n++;
				if (s->now - since > s->sched_max) {
					s->sched_max = s->now - since;
					snprintf(s->sched_worst, sizeof
					    s->sched_worst, "%s", a->uuid);
				}
			}
			r->work_ms = s->duration != NULL && t != NULL ?
			    s->duration(s, t->exec) : s->task_ms;
			/* -i, -x: a task's work is its first run's, for
			 * all, its tail replicas' too. */
			snprintf(r->key, sizeof r->key, "%s", t != NULL &&
			    t->replica_of[0] != '\0' && t->verify == 0 ?
			    t->replica_of : a->uuid);
			if (s->ckpts.every_ms >= 0 || s->fixed_work)
				r->work_ms = simck_work_of(s, r->key,
				    r->work_ms);
			r->end = s->task_ms < 0 ? -1 : s->now + scaled(s, i,
			    r->work_ms);
			if (s->ckpts.every_ms > 0 && t != NULL && r->end >= 0) {
				/* From its newest checkpoint, if a live node
				 * keeps it; the copy first. */
				int64_t delay;
				r->work_from = simck_restore(s, i, t, &delay);
				r->end = s->now + delay + scaled(s, i,
				    r->work_ms - r->work_from);
				r->since = s->now + delay;
			}
			r->work_at = r->work_from;
			r->since = r->end < 0 ? -1 : r->since > 0 ? r->since :
			    s->now;
			schedule_ckpt(s, r);
			if (t != NULL && r->end > s->now) {
				int64_t est = node_task_run_estimate(
				    s->nodes[i], t), run = r->end - s->now;
				if (est >= 0) {
					s->est_err += (double)llabs(est - run) /
					    run;
					s->est_n++;
				}
			}
			r->crash = s->crash_percent > 0 &&
			    (int)(sim_random(s) % 100) < s->crash_percent;
			if (s->black_hole[i]) {
				r->crash = 1;
				s->black_hole_runs++;
			}
			r->next = s->runs;
			s->runs = r;
			s->starts++;
			schedule_runend(s, r);
			if (s->progress && r->end > s->now + 1) {
				memset(&e, 0, sizeof e);
				e.kind = EV_PROGRESS;
				e.at = s->now + (r->end - s->now) / 2;
				e.to = r->node;
				e.run = r;
				r->pending++;
				evq_push(s->dgrams, &e);
			}
			break;
		case ACT_STOP:
			if ((r = find_run(s, i, a->uuid)) != NULL &&
			    !r->stopping) {
				r->stopping = 1;
				r->end = s->now + 1;
				schedule_runend(s, r);
			}
			break;
		case ACT_SUSPEND:
			/* A stopped process makes no progress. */
			if ((r = find_run(s, i, a->uuid)) != NULL &&
			    r->end >= 0) {
				r->left = r->end - s->now;
				r->end = -1;
				r->work_at = run_work(s, r);
				r->since = -1;
				schedule_ckpt(s, r);
			}
			break;
		case ACT_RESUME:
			if ((r = find_run(s, i, a->uuid)) != NULL &&
			    r->end < 0 && !r->stopping) {
				r->end = s->now + r->left;
				schedule_runend(s, r);
				r->since = s->now;
				schedule_ckpt(s, r);
			}
			break;
		case ACT_CKPT_FETCH:
			simck_fetch(s, i, a->uuid, a->peer, a->text);
			break;
		case ACT_JOURNAL:
			if (!s->no_disks &&
			    (t = node_find(s->nodes[i], a->uuid)) != NULL)
				disk_append(s, i, t);
			break;
		case ACT_TIMER:
			/* The node's clock is ours plus its skew. */
			s->timer[i] = a->when < 0 ? -1 : a->when - s->skew[i];
			if (a->when >= 0) {
				memset(&e, 0, sizeof e);
				e.kind = EV_TIMER;
				e.at = s->timer[i];
				e.to = i;
				evq_push(s->dgrams, &e);
			}
			break;
		case ACT_LOG:
			trace(s, i, a->text);
			/* SCHEDULE promised every STATE of a task fits. */
			if (strstr(a->text, "does not fit") != NULL)
				sim_violation(s, "%s: %s",
				    node_name(s->nodes[i]), a->text);
			break;
		case ACT_NOTIFY:
			/* The server tells a subscriber an end as final only
			 * once its certificate holds (node_certify); here every
			 * line is told. */
			if (node_certify(s->nodes[i], a->uuid, sim_local(s, i)))
				check_notify(s, i, o->v[k].text);
			break;
		case ACT_RETIRE:
			check_retire(s, i, a->uuid, a->text);
			break;
		case ACT_FORGET:
			/* The server compacts its journal at once. */
			if (!s->no_disks)
				disk_rewrite(s, i);
			break;
		case ACT_MEMBERS:
			/* Kept on the disk, for the restart. */
			free(s->members[i]);
			s->members[i] = sim_strdup(a->text);
			break;
		case ACT_STAY:
			free(s->stay[i]);
			s->stay[i] = sim_strdup(a->text);
			break;
		case ACT_WAKE:
			simwake_heard(s, i, a->text);
			break;
		case ACT_SLEEP:
			simwake_sleep_soon(s, i);
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
	struct node_config	 cfg = s->cfg;

	node_free(s->nodes[i]);
	snprintf(cfg.name, sizeof cfg.name, "n%02d", i);
	cfg.reputation = reputation;
	/* How a sleeping node is woken (simwake.c): a MAC of its index. */
	snprintf(cfg.wake, sizeof cfg.wake, "02:00:00:00:%02x:%02x@"
	    "10.0.0.255,always", (i >> 8) & 0xff, i & 0xff);
	if (s->identities)
		cfg.sign_sk = s->sk[i];
	if (s->gpu_nodes > 0) {
		cfg.cores = 4;
		cfg.memory_mb = 8192;
		snprintf(cfg.tags, sizeof cfg.tags, "%s", i < s->gpu_nodes ?
		    "gpu,linux" : "linux");
	}
	if ((s->nodes[i] = node_new(&cfg, s->descs)) == NULL)
		abort();
	if (s->identities)
		sim_learn_keys(s, i);
	s->timer[i] = -1;
	s->alive[i] = 1;
	s->asleep[i] = s->waking[i] = 0;	/* a reboot, not a resume */
	s->incarnation[i]++;
	s->counter[i] = 0;
	free(s->ucounter[i]);
	s->ucounter[i] = NULL;
	/* The server's guard lives in memory: a restart starts it anew. */
	guard_free(&s->guard[i]);
	guard_init(&s->guard[i], SIM_MAXNODES, node_config_silence_ms(&s->cfg),
	    GUARD_STALE_MS);
	/* Restart: what the disk kept comes back, through the real load
	 * path; then, as the server does, a compact journal of the map. */
	disk_load(s, i);
	if (s->members[i] != NULL) {
		char *list = sim_strdup(s->members[i]), *p = list, *name;
		while ((name = strsep(&p, "\n")) != NULL)
			node_restore_member(s->nodes[i], name,
			    sim_local(s, i));
		free(list);
	}
	/* The stay file, last stamped when it crashed (the server's is up
	 * to a stamp older). */
	if (s->stay[i] != NULL)
		node_stay_restore(s->nodes[i], s->stay[i], s->down_at[i],
		    sim_local(s, i));
	node_recover(s->nodes[i], sim_local(s, i));
	if (!s->no_disks)
		disk_rewrite(s, i);
	node_start(s->nodes[i], sim_local(s, i));
	sim_flush(s, i);
}

void
sim_crash(struct simnet *s, int i)
{
	struct sim_run	*r;
	int		 j, up = 0;

	s->alive[i] = 0;
	s->down_at[i] = sim_local(s, i);
	for (j = 0; j < s->n; j++)
		up += s->alive[j];
	if (up < s->fewest_up)
		s->fewest_up = up;
	disk_tear(s, i);
	for (r = s->runs; r != NULL; r = r->next)
		if (r->node == i && !r->done) {
			run_over(s, r, 0);
			r->done = 1;
		}
}

/* The receiver's guard (guard.c), as the server's peers.c runs it. */
static int
admit(struct simnet *s, int to, const struct sim_msg *msg,
    const struct peer_msg *m)
{
	struct guard_dgram	d;
	char			was[ADDR_MAXLEN + 1];

	/* A unicast replayed to another node does not open there. */
	if (!s->insecure && msg->to >= 0 && msg->to != to) {
		s->rejected++;
		return 0;
	}
	d.sender = m->sender;
	d.incarnation = m->incarnation;
	d.sealed = !s->insecure;
	d.addr = msg->addr;
	d.seq = msg->seq;
	d.sent_ms = msg->sent_ms;
	if (guard_dropped(guard_admit(&s->guard[to], &d, sim_local(s, to),
	    was))) {
		s->rejected++;
		return 0;
	}
	return 1;
}

/* End run r: TERMINATED with outputs, a crash, or a stopped run's exit. */
static void
end_run(struct simnet *s, struct sim_run *r)
{
	struct node		*n = s->nodes[r->node];
	/* No CPU measured: the records stay as the traces have them. */
	struct node_exit	 e = { 0, 0, -1, -1, NULL };
	struct task		*t = node_find(n, r->uuid);
	struct runner_msg	 m;

	r->done = 1;
	s->free_since[r->node] = s->now;
	run_over(s, r, !r->crash && !r->stopping && t != NULL);
	if (r->crash && !r->stopping) {
		e.code = 3;
		if (s->black_hole[r->node])
			s->black_hole_fails[r->node]++;
	}
	else if (!r->stopping && t != NULL) {
		static char ids[TASK_OUTPUTS_MAX][96];
		const struct taskdesc *d = taskdesc_find(s->descs, t->exec);
		int k;
		memset(&m, 0, sizeof m);
		m.type = RMSG_TERMINATED;
		m.noutputs = d != NULL ? d->noutputs : 0;
		/* A replica's outputs are the task's, as a program that
		 * names them after VOLERY_TASK gives; the liar's (-F), and
		 * its digest, its own. */
		int lie = t->replica_of[0] != '\0' && r->node == s->liar &&
		    s->lies > 0;
		if (t->replica_of[0] != '\0')
			memset(m.digest, lie ? 'f' : '0', DIGEST_HEX);
		for (k = 0; k < m.noutputs; k++) {
			int len = t->replica_of[0] != '\0' ?
			    snprintf(ids[k], sizeof ids[k], "%.12s-%s%d",
			    t->replica_of + 24, lie ? "LIE" : "", k + 1) :
			    snprintf(ids[k], sizeof ids[k], "%.8s-%s-%d",
			    r->uuid, node_name(n), k + 1);
			/* -O: a large request's outputs are the longest ids,
			 * every byte padded with one the codec escapes. */
			if (t->params != NULL)
				memset(ids[k] + len, '%', DATASET_MAXLEN - len);
			if (t->params != NULL)
				ids[k][DATASET_MAXLEN] = '\0';
			m.outputs[k] = ids[k];
		}
		e.result = &m;	/* it counts as the process exits */
	}
	node_runner_exit(n, r->uuid, &e, sim_local(s, r->node));
	sim_flush(s, r->node);
}

void
sim_finish(struct simnet *s, int i, const char *uuid)
{
	struct sim_run	*r = find_run(s, i, uuid);

	if (r != NULL)
		end_run(s, r);
}

/* Free the runs that are over and that no event in the queue refers to. */
static void
reap_runs(struct simnet *s)
{
	struct sim_run	**pp = &s->runs, *r;

	while ((r = *pp) != NULL) {
		if (r->done && r->pending == 0) {
			*pp = r->next;
			free(r);
		} else
			pp = &r->next;
	}
}

/*
 * A bounded receive queue: at most queue_max datagrams reach a node in
 * one millisecond, as a socket buffer a burst overflows.
 */
static int
overflows(struct simnet *s, int i)
{
	if (s->queue_max <= 0)
		return 0;
	if (s->queue_ms[i] != s->now) {
		s->queue_ms[i] = s->now;
		s->queue_n[i] = 0;
	}
	if (s->queue_n[i]++ < s->queue_max)
		return 0;
	s->lost++;
	return 1;
}

/* A run's process reports its progress halfway. */
static void
run_progress(struct simnet *s, struct sim_run *r)
{
	struct runner_msg	m;

	memset(&m, 0, sizeof m);
	m.type = RMSG_PROGRESS;
	m.percent = 50;
	node_runner_msg(s->nodes[r->node], r->uuid, &m, sim_local(s, r->node));
	sim_flush(s, r->node);
}

/* The parse of an ok msg: its own, or its text's again. */
static const struct peer_msg *
msg_parse(const struct sim_msg *msg)
{
	static struct peer_msg	m;
	char			err[128];

	if (msg->m != NULL)
		return msg->m;
	if (peer_parse(msg->opened, msg->openedlen, &m, err, sizeof err) == -1)
		abort();	/* it parsed when it was sent */
	return &m;
}

static void
cpu_next_step(struct simnet *s)
{
	struct sim_ev	e;

	memset(&e, 0, sizeof e);
	e.kind = EV_CPU;
	e.at = s->now + s->cpu_step;
	evq_push(s->dgrams, &e);
}

void
sim_cpu_avail(struct simnet *s, int64_t every)
{
	s->cpu_step = every;
	cpu_next_step(s);
}

/* Every node's CPU availability steps; a run on a node whose speed
 * changed goes on at the new one from the work it has done. */
static void
cpu_step(struct simnet *s)
{
	int		 next[SIM_MAXNODES], i, k;
	struct sim_run	*r;
	double		 u;

	for (i = 0; i < s->n; i++) {
		u = (double)(sim_random(s) >> 11) / (double)(1ULL << 53);
		for (k = 0; k < 2 && u >= cpu_next[s->cpu_state[i]][k]; k++)
			u -= cpu_next[s->cpu_state[i]][k];
		next[i] = k;
	}
	/* The work each run did at the old speeds... */
	for (r = s->runs; r != NULL; r = r->next)
		if (!r->done && !r->stopping && r->end >= 0 &&
		    r->since >= 0 && r->since <= s->now &&
		    next[r->node] != s->cpu_state[r->node]) {
			r->work_at = run_work(s, r);
			r->since = s->now;
		}
	/* ...and the rest at the new. */
	for (r = s->runs; r != NULL; r = r->next)
		if (!r->done && !r->stopping && r->end >= 0 &&
		    r->since >= 0 && next[r->node] != s->cpu_state[r->node]) {
			k = s->cpu_state[r->node];
			s->cpu_state[r->node] = next[r->node];
			r->end = r->since + scaled(s, r->node, r->work_ms -
			    r->work_at);
			s->cpu_state[r->node] = k;
			schedule_runend(s, r);
			schedule_ckpt(s, r);
		}
	for (i = 0; i < s->n; i++)
		s->cpu_state[i] = next[i];
	cpu_next_step(s);
}

void
sim_run_until(struct simnet *s, int64_t t)
{
	const struct peer_msg	*m;
	uint64_t		 events = 0;

	while (evq_next_at(s->dgrams) <= t) {
		struct sim_ev e = evq_pop(s->dgrams);

		s->now = e.at;
		switch (e.kind) {
		case EV_TIMER:
			/* Lazy deletion: only the timer the node armed last. */
			if (s->alive[e.to] && s->timer[e.to] == e.at) {
				s->timer[e.to] = -1;
				node_tick(s->nodes[e.to], sim_local(s, e.to));
				sim_flush(s, e.to);
			}
			break;
		case EV_RUNEND:
			e.run->pending--;
			if (!e.run->done && e.run->end == e.at)
				end_run(s, e.run);
			break;
		case EV_DGRAM:
			if (s->alive[e.to] && e.msg->ok && !overflows(s, e.to) &&
			    admit(s, e.to, e.msg, m = msg_parse(e.msg))) {
				s->delivered++;
				node_peer_msg(s->nodes[e.to], m, e.msg->addr,
				    sim_local(s, e.to));
				sim_flush(s, e.to);
			}
			msg_release(e.msg);
			break;
		case EV_PROGRESS:
			e.run->pending--;
			if (!e.run->done && s->alive[e.run->node])
				run_progress(s, e.run);
			break;
		case EV_CKPT:
			e.run->pending--;
			if (!e.run->done && e.run->gen == e.from &&
			    s->alive[e.run->node] && !e.run->stopping)
				run_checkpoint(s, e.run);
			break;
		case EV_CKPT_COPY:
			simck_copied(s, e.to, e.copy);
			break;
		case EV_CPU:
			cpu_step(s);
			break;
		case EV_WAKE:
			simwake_resume(s, e.to);
			break;
		case EV_SLEEP:
			if (s->alive[e.to] && !s->asleep[e.to])
				sim_sleep(s, e.to);
			break;
		}
		if (++events % 65536 == 0)
			reap_runs(s);
	}
	s->now = t;
	reap_runs(s);
}

/* ---- queries and invariants ------------------------------------------- */

int
sim_master_count(struct simnet *s, const char **name)
{
	int	i, c = 0;

	for (i = 0; i < s->n; i++) {
		if (s->alive[i] && node_is_master(s->nodes[i])) {
			c++;
			if (name != NULL)
				*name = node_name(s->nodes[i]);
		}
	}
	return c;
}

/* -O: text of len bytes, most of which the codec escapes (as %XX). */
static const char *
big_text(char *buf, size_t len, uint64_t r)
{
	static const char	pattern[] = "% %/% ";
	size_t			i;

	for (i = 0; i < len; i++)
		buf[i] = pattern[(r + i) % (sizeof pattern - 1)];
	buf[len] = '\0';
	return buf;
}

int
sim_schedule(struct simnet *s, int i, const char *exec, int prio, int nbind,
    const struct task_binding *bind, char *uuid_out)
{
	static char			path[PATH_MAXLEN + 1];
	static char			params[PATH_MAXLEN + 1];
	struct node_schedule_req	req;
	char				err[256];
	int				rc, big = 0;

	/* A sleeping host submits nothing (simwake.c): its user's work
	 * goes in at n00, which never sleeps. */
	if (s->asleep[i])
		i = 0;
	memset(&req, 0, sizeof req);
	req.exec = exec;
	req.prio = prio;
	req.path = strcmp(exec, "import") == 0 ? "/data" : NULL;
	req.nbind = nbind;
	req.bind = bind;
	req.client = "sim";
	req.user = s->user;
	req.deadline_ms = s->deadline_ms;
	if (s->gpu_nodes > 0 && s->scheduled % 3 == 0)
		req.tags = "gpu";
	if (s->array[0] != '\0') {
		req.array = s->array;
		req.array_index = (int)s->scheduled + 1;
		req.array_max = s->array_max;
	}
	if (s->oversize_percent > 0 &&
	    (int)(sim_random(s) % 100) < s->oversize_percent) {
		uint64_t r = sim_random(s);
		/* Each from half the limit to the limit. */
		req.path = big_text(path, PATH_MAXLEN / 2 +
		    r % (PATH_MAXLEN / 2 + 1), r);
		req.params = big_text(params, PATH_MAXLEN / 2 +
		    (r >> 20) % (PATH_MAXLEN / 2 + 1), r);
		/* Many outputs: records that may outgrow a datagram. */
		if (strcmp(exec, "job") == 0)
			req.exec = "wide";
		big = 1;
	}
	/* -r: a verified task's uuid ends in a0, its replicas' in a1...:
	 * none is another task's. */
	if (s->verify > 0)
		req.verify = s->verify;
	snprintf(uuid_out, UUID_STRLEN + 1, s->verify > 0 ?
	    "00000000-0000-4000-8001-%010ua0" : "00000000-0000-4000-8000-%012u",
	    ++s->scheduled);
	if (s->est_k >= 1 && s->duration != NULL) {
		/* The length told, and the work the runs will do (fixed),
		 * from the workload's stream. */
		int64_t l, w;
		double lo, hi;
		swap_streams(s);
		l = s->duration(s, exec);
		lo = (double)l / s->est_k;
		hi = (double)l * s->est_k;
		w = (int64_t)(lo + (hi - lo) *
		    (double)(sim_random(s) % 1000001) / 1000000);
		swap_streams(s);
		req.est_ms = l > 0 ? l : 1;
		(void)simck_work_of(s, uuid_out, w > 0 ? w : 1);
	}
	rc = node_schedule(s->nodes[i], &req, uuid_out, sim_local(s, i), err,
	    sizeof err);
	if (rc == -1) {
		trace(s, i, err);
		if (!big || strncmp(err, "task too large", 14) != 0)
			sim_violation(s, "SCHEDULE of %s refused: %s",
			    uuid_out, err);
		uuid_out[0] = '\0';	/* not acknowledged: not promised */
	}
	sim_flush(s, i);
	return rc;
}

/* Schedule one workflow of thesis Table 4.1 on node i. */
int
sim_workflow(struct simnet *s, int i, const int prio[4],
    char (*u)[UUID_STRLEN + 1])
{
	struct task_binding	b[3];
	int			k;

	if (sim_schedule(s, i, "import", prio[0], 0, NULL, u[0]) == -1)
		return -1;
	for (k = 0; k < 3; k++) {
		memcpy(b[k].uuid, u[0], sizeof b[k].uuid);
		b[k].nth = k + 1;
	}
	if (sim_schedule(s, i, "georeferencing", prio[1], 3, b, u[1]) == -1)
		return -1;
	memcpy(b[1].uuid, u[1], sizeof b[1].uuid);
	b[1].nth = 1;
	memcpy(b[2].uuid, u[1], sizeof b[2].uuid);
	b[2].nth = 2;
	if (sim_schedule(s, i, "segmentation", prio[2], 3, b, u[2]) == -1)
		return -1;
	memcpy(b[0].uuid, u[2], sizeof b[0].uuid);
	b[0].nth = 1;
	return sim_schedule(s, i, "anomaly_detection", prio[3], 1, b, u[3]);
}

int
sim_starts(struct simnet *s, const char *uuid, char *last_node)
{
	struct tally_slot	*ts = tally(s, uuid);

	if (last_node != NULL && ts->last >= 0)
		strcpy(last_node, node_name(s->nodes[ts->last]));
	return ts->starts;
}

/* -W: a task settled long enough ago that some node may have retired
 * it while another has not yet (a housekeeping tick, clock skew). */
static int
leaving(const struct simnet *s, const struct task *t)
{
	int64_t	margin = 2 * s->cfg.progress_interval_ms + 2 * s->max_skew;

	return s->cfg.retention_ms > 0 && s->cfg.retention_ms < 86400000 &&
	    task_is_settled(t) &&
	    t->end_ms + s->cfg.retention_ms <= s->now + margin;
}

/* ": <uuid> <state> on a, <state> on b" of the first task that differs. */
static const char *
map_difference(struct simnet *s, int a, int b)
{
	static char	 text[256];
	const struct task *t, *u;
	size_t		 it = 0;
	int		 pass;

	for (pass = 0; pass < 2; pass++, it = 0) {
		int x = pass == 0 ? a : b, y = pass == 0 ? b : a;
		while ((t = node_next_task(s->nodes[x], &it)) != NULL) {
			u = node_find(s->nodes[y], t->uuid);
			if ((u != NULL && u->state == t->state &&
			    u->ver == t->ver && u->confirmed == t->confirmed) ||
			    (u == NULL && leaving(s, t)))
				continue;
			snprintf(text, sizeof text, ": %s %s%s v%llu on %s, "
			    "%s%s v%llu on %s", t->uuid,
			    task_state_name(t->state), t->confirmed ? "" : "?",
			    (unsigned long long)t->ver,
			    node_name(s->nodes[x]), u != NULL ?
			    task_state_name(u->state) : "none", u != NULL &&
			    !u->confirmed ? "?" : "", u != NULL ?
			    (unsigned long long)u->ver : 0ULL,
			    node_name(s->nodes[y]));
			return text;
		}
	}
	return "";
}

int
sim_maps_agree(struct simnet *s, int a, int b)
{
	struct node_status	x, y;

	node_status(s->nodes[a], &x);
	node_status(s->nodes[b], &y);
	if (x.ntasks == y.ntasks &&
	    node_digest(s->nodes[a]) == node_digest(s->nodes[b]))
		return 1;
	/* -W: equal but for tasks some node retired a moment earlier. */
	return s->cfg.retention_ms > 0 && s->cfg.retention_ms < 86400000 &&
	    map_difference(s, a, b)[0] == '\0';
}

int
sim_check(struct simnet *s, char (*uuids)[UUID_STRLEN + 1], int n)
{
	int		 before = s->violations, i, k, first = -1;
	const char	*master = NULL;

	for (i = 0; i < s->n; i++)
		if (s->alive[i] && first < 0)
			first = i;
	if (first < 0)
		return 0;
	/* No task lost; one result; every node agrees on it. */
	for (k = 0; k < n; k++) {
		const struct task *ref = sim_record(s, first, uuids[k]);
		for (i = 0; i < s->n; i++) {
			const struct task *t;
			if (!s->alive[i])
				continue;
			t = sim_record(s, i, uuids[k]);
			if (t == NULL) {
				sim_violation(s, "task %s lost on %s",
				    uuids[k], node_name(s->nodes[i]));
				continue;
			}
			if (!task_is_final(t->state))
				sim_violation(s, "task %s still %s on %s",
				    uuids[k], task_state_name(t->state),
				    node_name(s->nodes[i]));
			if ((t->noutputs > 0 && sim_forged(t->outputs[0])) ||
			    sim_forged(t->reason))
				sim_violation(s, "task %s: %s holds the liar's "
				    "%s", uuids[k], node_name(s->nodes[i]),
				    task_state_name(t->state));
			if (ref != NULL && (t->state != ref->state ||
			    strcmp(t->running_on, ref->running_on) != 0 ||
			    t->noutputs != ref->noutputs ||
			    (t->noutputs > 0 && strcmp(t->outputs[0],
			    ref->outputs[0]) != 0)))
				sim_violation(s, "task %s: %s has %s on %s, "
				    "%s has %s on %s", uuids[k],
				    node_name(s->nodes[first]),
				    task_state_name(ref->state),
				    ref->running_on, node_name(s->nodes[i]),
				    task_state_name(t->state), t->running_on);
		}
		/* A dependent ran on the result that was kept. */
		if (ref != NULL && ref->state == TASK_TERMINATED) {
			int j;
			for (j = 0; j < ref->ninputs; j++) {
				const struct task *up = sim_record(s, first,
				    ref->inputs[j].from);
				if (up == NULL || up->state != TASK_TERMINATED ||
				    ref->inputs[j].dataset == NULL ||
				    strcmp(up->outputs[ref->inputs[j].nth - 1],
				    ref->inputs[j].dataset) != 0)
					sim_violation(s, "task %s ran on an "
					    "output of %s that was not kept",
					    uuids[k], ref->inputs[j].from);
			}
		}
	}
	/* The digest each node keeps as tasks change is its map's. */
	for (i = 0; i < s->n; i++)
		if (s->alive[i] && node_digest(s->nodes[i]) !=
		    node_digest_recomputed(s->nodes[i]))
			sim_violation(s, "%s: kept digest %016llx, map's %016llx",
			    node_name(s->nodes[i]),
			    (unsigned long long)node_digest(s->nodes[i]),
			    (unsigned long long)node_digest_recomputed(
			    s->nodes[i]));
	for (i = 0; i < s->n; i++)
		if (s->alive[i] && !node_digest_buckets_ok(s->nodes[i]))
			sim_violation(s, "%s: kept bucket digests are not its "
			    "map's", node_name(s->nodes[i]));
	/* One master; the same map and queue everywhere. */
	if (sim_master_count(s, &master) != 1)
		sim_violation(s, "%d masters once the network is calm",
		    sim_master_count(s, NULL));
	for (i = 0; i < s->n; i++) {
		struct node_status st, ref;
		size_t q;
		if (!s->alive[i] || i == first)
			continue;
		if (master != NULL && strcmp(node_master(s->nodes[i]), master) != 0)
			sim_violation(s, "%s follows master '%s', not %s",
			    node_name(s->nodes[i]), node_master(s->nodes[i]), master);
		node_status(s->nodes[i], &st);
		node_status(s->nodes[first], &ref);
		if (!sim_maps_agree(s, first, i))
			sim_violation(s, "task maps of %s and %s differ%s",
			    node_name(s->nodes[first]), node_name(s->nodes[i]),
			    map_difference(s, first, i));
		if (st.nready != ref.nready) {
			sim_violation(s, "ready queues of %s and %s differ",
			    node_name(s->nodes[first]), node_name(s->nodes[i]));
			continue;
		}
		for (q = 0; q < st.nready; q++)
			if (strcmp(node_ready_at(s->nodes[i], q)->uuid,
			    node_ready_at(s->nodes[first], q)->uuid) != 0)
				sim_violation(s, "ready queues of %s and %s "
				    "differ at %zu", node_name(s->nodes[first]),
				    node_name(s->nodes[i]), q);
	}
	return s->violations - before;
}
