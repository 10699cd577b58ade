/*
 * server.c -- the node's event loop.  Turns client lines, task output,
 * process exits and timers into core events, and carries out the actions
 * the core returns: log, journal, notify, start, stop, timer.
 */
#include <sys/utsname.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <uuid/uuid.h>

#include "clash.h"
#include "clients.h"
#include "clock.h"
#include "config.h"
#include "descs.h"
#include "idle.h"
#include "job.h"
#include "account.h"
#include "api.h"
#include "history.h"
#include "http.h"
#include "journal.h"
#include "keys.h"
#include "log.h"
#include "logjob.h"
#include "pooltime.h"
#include "logsearch.h"
#include "node.h"
#include "peer.h"
#include "peers.h"
#include "members.h"
#include "cmdrun.h"
#include "contain.h"
#include "outfetch.h"
#include "output.h"
#include "reputation.h"
#include "runas.h"
#include "rundir.h"
#include "runner.h"
#include "server.h"
#include "task.h"
#include "taskdesc.h"
#include "wire.h"

static struct {
	const struct config	*cfg;
	struct event_base	*base;
	struct node		*core;
	struct taskdesc_set	 descs;
	struct runas		 user;		/* whom tasks run as */
	char			 tasks_dir[PATH_MAX];	/* absolute */
	struct event		*tick_ev;
	struct event		*commit_ev;
	struct event		*sigterm_ev, *sigint_ev, *sighup_ev;
	char			 address[ADDR_MAXLEN + 1];
	int			 reputation;
	uint64_t		 incarnation;
	struct keyring		 ring;		/* n == 0: <insecure/> */
	uint8_t			 operator_key[SEAL_KEY_BYTES];
	int			 forgot;	/* a task left: compact */
	struct node_config	 caps;		/* what we offer (NODES) */
	struct vol_decision	 decision;	/* the idle probes' last */
} srv;

static void	decide(void);

static void
arm_timer(int64_t when)
{
	struct timeval	tv;
	int64_t		delay_us;

	if (when < 0) {
		evtimer_del(srv.tick_ev);
		return;
	}
	/* To the microsecond, from libevent's own idea of now: a delay in
	 * whole ms from a stale cached time fired just before `when`, and
	 * the node woke a second time 1 ms later. */
	event_base_update_cache_time(srv.base);
	delay_us = (when * 1000000 - clock_node_ns() + 999) / 1000;
	if (delay_us < 0)
		delay_us = 0;
	tv.tv_sec = delay_us / 1000000;
	tv.tv_usec = delay_us % 1000000;
	evtimer_add(srv.tick_ev, &tv);
}

static void	send_to_peer(const char *, const char *);

/* A PROGRESS line gets its task's expected end as it goes out, and a
 * Ready task that no live node can run says why (reason=). */
static void
progress_extras(char *line, size_t size, const struct task *t)
{
	int64_t	now = clock_node_ms(), end;
	char	why[REASON_MAXLEN + 1];
	size_t	eol;

	if (t != NULL && !task_is_final(t->state) &&
	    (end = node_task_end_estimate(srv.core, t, now)) >= 0)
		(void)wire_progress_add_eta(line, size, end - now);
	if (t == NULL || t->state != TASK_READY ||
	    strstr(line, " reason=") != NULL)
		return;
	node_task_waiting(srv.core, t, why, sizeof why);
	eol = strcspn(line, "\n");
	if (why[0] != '\0' && eol + strlen(why) + 10 < size)
		snprintf(line + eol, size - eol, " reason=%s\n", why);
}

static void
notify(const char *uuid, const char *snapshot)
{
	char	line[CLIENT_LINE_MAX + 64];

	http_task_changed(uuid);
	if (!clients_subscribed(uuid))
		return;
	snprintf(line, sizeof line, "%s", snapshot);
	progress_extras(line, sizeof line, node_find(srv.core, uuid));
	clients_notify(uuid, line);
}
static int	start_run(const struct task *, char *, size_t);

/* A datagram held until the journal is on disk (outbox_peer_durable). */
struct held_send {
	char	peer[NAME_MAXLEN + 1];	/* "" broadcast */
	char	body[];
};

static void
held_send_cb(void *arg, int ok)
{
	struct held_send	*h = arg;

	if (!ok)
		log_msg(VLOG_WARNING, "journal not written: a vote or "
		    "confirmation not sent");
	else if (h->peer[0] == '\0')
		peers_broadcast(h->body);
	else
		send_to_peer(h->peer, h->body);
	free(h);
}

static void
send_when_durable(const struct action *a)
{
	size_t			 len = strlen(a->text) + 1;
	struct held_send	*h = malloc(sizeof *h + len);

	if (h == NULL) {
		log_msg(VLOG_ERROR, "out of memory holding a datagram");
		return;
	}
	snprintf(h->peer, sizeof h->peer, "%s",
	    a->type == ACT_UNICAST ? a->peer : "");
	memcpy(h->body, a->text, len);
	journal_after_commit(held_send_cb, h);
}

static void
send_to_peer(const char *name, const char *body)
{
	const char	*addr = node_peer_addr(srv.core, name);

	if (addr != NULL)
		peers_unicast(name, addr, body);
}

/*
 * What this host offers tasks (node_config: cores, memory, tags): the
 * config's, else the host's own CPUs and memory; its tags, and the
 * operating system and architecture as two more ("linux", "x86_64").
 */
static void
host_caps(struct node_config *nc, const struct config *cfg)
{
	struct utsname	u;
	long		pages = sysconf(_SC_PHYS_PAGES);
	long		psize = sysconf(_SC_PAGESIZE);
	char		sys[NAME_MAXLEN + 1] = "linux", arch[NAME_MAXLEN + 1];
	size_t		i;

	nc->cores = cfg->cores > 0 ? cfg->cores :
	    (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (nc->cores < 1)
		nc->cores = 1;
	nc->memory_mb = cfg->memory_mb > 0 ? cfg->memory_mb :
	    pages > 0 && psize > 0 ? (int64_t)pages / (1048576 / psize) : 0;
	arch[0] = '\0';
	if (uname(&u) == 0) {
		for (i = 0; u.sysname[i] != '\0' && i < NAME_MAXLEN; i++)
			sys[i] = (char)tolower((unsigned char)u.sysname[i]);
		sys[i] = '\0';
		snprintf(arch, sizeof arch, "%s", u.machine);
	}
	snprintf(nc->tags, sizeof nc->tags, "%s", cfg->tags);
	if (task_name_valid(sys) && !task_names_have(nc->tags, sys))
		snprintf(nc->tags + strlen(nc->tags), sizeof nc->tags -
		    strlen(nc->tags), "%s%s", nc->tags[0] != '\0' ? "," : "",
		    sys);
	if (task_name_valid(arch) && !task_names_have(nc->tags, arch))
		snprintf(nc->tags + strlen(nc->tags), sizeof nc->tags -
		    strlen(nc->tags), ",%s", arch);
	log_msg(VLOG_NORMAL, "this node offers %d cores, %lld MB of memory, "
	    "tags %s", nc->cores, (long long)nc->memory_mb, nc->tags);
}

/* ACT_CHECK: can this host run the command task uuid?  The answer goes
 * back at once (the core takes it while we carry out its actions). */
static void
check_command(const char *uuid)
{
	const struct task	*t = node_find(srv.core, uuid);
	char			 prog[PATH_MAX], why[REASON_MAXLEN + 1] = "";
	int			 ok;

	if (t == NULL || t->cmd == NULL)
		return;
	ok = cmdrun_find(t, &srv.user, prog, sizeof prog, why,
	    sizeof why) == 0;
	if (ok)
		log_debug("Task UUID{%s}: its program is %s here", uuid, prog);
	node_command_checked(srv.core, uuid, ok, why, clock_node_ms());
}

/* Carry out what the core asked for, in order, then empty the outbox. */
static void
carry_out(void)
{
	struct outbox	*o = node_outbox(srv.core);
	struct task	*t;
	char		 err[256];
	size_t		 i, retired = 0;

	for (i = 0; i < o->n; i++) {
		struct action *a = &o->v[i];
		/* The core may append while we go: re-read o->v each time. */
		switch (a->type) {
		case ACT_LOG:
			log_msg(a->level, "%s", a->text);
			break;
		case ACT_TIMER:
			arm_timer(a->when);
			break;
		case ACT_STOP:
			runner_stop(a->uuid);
			break;
		case ACT_SUSPEND:
		case ACT_RESUME:
			runner_suspend(a->uuid, a->type == ACT_SUSPEND);
			break;
		case ACT_BROADCAST:
		case ACT_UNICAST:
			if (a->durable && journal_pending())
				send_when_durable(a);
			else if (a->type == ACT_BROADCAST)
				peers_broadcast(a->text);
			else
				send_to_peer(a->peer, a->text);
			break;
		case ACT_MEMBERS:
			members_save(srv.cfg->state_dir, a->text);
			break;
		case ACT_RETIRE:
			history_append(a->uuid, a->text);
			output_forget(a->uuid);
			retired++;
			break;
		case ACT_CHECK:
			check_command(a->uuid);
			break;
		case ACT_FORGET:
			srv.forgot = 1;		/* compact the journal */
			break;
		case ACT_NOTIFY:	/* the line is a snapshot */
			notify(a->uuid, a->text);
			break;
		case ACT_JOURNAL:
		case ACT_START:
			if ((t = node_find(srv.core, a->uuid)) == NULL)
				break;
			if (a->type == ACT_JOURNAL)
				journal_append(t);
			else if (start_run(t, err, sizeof err) == -1) {
				struct node_exit e = { -1, 0, -1, -1, NULL };
				char uuid[UUID_STRLEN + 1];
				log_msg(VLOG_ERROR, "Task UUID{%s} name{%s} "
				    "cannot start: %s", t->uuid, t->exec, err);
				memcpy(uuid, t->uuid, sizeof uuid);
				node_runner_exit(srv.core, uuid, &e,
				    clock_node_ms());
			}
			break;
		}
	}
	outbox_clear(o);
	http_nodes_maybe_changed();
	/* Retirement is rare (a batch a tick at most): sync it at once. */
	if (retired > 0)
		history_commit();
	if (journal_pending() || srv.forgot)
		event_active(srv.commit_ev, EV_TIMEOUT, 1);
}

/*
 * Compact the journal once it holds mostly superseded records, or
 * rewrite it whole after a failed commit dropped records.
 */
static void
maybe_compact(void)
{
	struct task	**v;
	size_t		  n;

	struct node_status st;

	node_status(srv.core, &st);
	if (!journal_lost() && !srv.forgot &&
	    journal_records() < 2 * st.ntasks + 4096)
		return;
	srv.forgot = 0;
	if ((v = node_tasks_sorted(srv.core, &n)) == NULL)
		return;
	journal_rewrite(v, n);
	free(v);
}

static void
commit_cb(evutil_socket_t fd, short what, void *arg)
{
	journal_commit();
	maybe_compact();
}

static void
tick_cb(evutil_socket_t fd, short what, void *arg)
{
	node_tick(srv.core, clock_node_ms());
	carry_out();
}

static void
runner_msg(const char *uuid, const struct runner_msg *m)
{
	node_runner_msg(srv.core, uuid, m, clock_node_ms());
	carry_out();
}

static void
runner_exit(const char *uuid, const struct node_exit *e)
{
	node_runner_exit(srv.core, uuid, e, clock_node_ms());
	carry_out();
}

/*
 * (Re)load the task descriptions, and say which this node cannot run:
 * no program, or one the run user cannot reach.  Such tasks are never
 * proposed for here (run_admissible), so no attempt is burnt on them.
 */
static int
load_descs(void)
{
	struct taskdesc	*d;
	char		 path[PATH_MAX + NAME_MAXLEN + 2], real[PATH_MAX];
	char		 why[sizeof d->cannot_run];
	size_t		 i;

	if (descs_load(srv.cfg->tasks_dir, &srv.descs) == -1)
		return -1;
	for (i = 0; i < srv.descs.n; i++) {
		d = &srv.descs.v[i];
		snprintf(path, sizeof path, "%s/%s", srv.cfg->tasks_dir,
		    d->name);
		if (realpath(path, real) == NULL || access(real, X_OK) == -1)
			snprintf(why, sizeof why, "no program %s in "
			    "tasks_dir: %s", d->name, strerror(errno));
		else if (runas_can_access(&srv.user, real, X_OK, why,
		    sizeof why) == 0)
			why[0] = '\0';
		if (why[0] != '\0')
			log_msg(VLOG_WARNING, "task %s cannot run on this "
			    "node: %s", d->name, why);
		snprintf(d->cannot_run, sizeof d->cannot_run, "%s", why);
	}
	return 0;
}

static int
start_run(const struct task *t, char *err, size_t errlen)
{
	const struct taskdesc	*d = taskdesc_find(&srv.descs, t->exec);

	if (t->cmd != NULL)
		return runner_start(t, NULL, err, errlen);
	if (d == NULL) {	/* run_admissible saw one; never removed */
		snprintf(err, errlen, "no description");
		return -1;
	}
	return runner_start(t, d, err, errlen);
}

/* Is there a program for exec in the tasks directory? */
static int
executable_exists(const char *exec)
{
	char	path[PATH_MAX + NAME_MAXLEN + 2];

	snprintf(path, sizeof path, "%s/%s", srv.cfg->tasks_dir, exec);
	return access(path, X_OK) == 0;
}

/* Schedule req (SCHEDULE or RUN) as asked by client, user: its uuid;
 * -1 with why in err. */
static int
schedule_request(const struct client_req *req, const char *client,
    const char *user, char *uuid, char *err, size_t errlen)
{
	struct node_schedule_req	 sr;
	uuid_t				 raw;

	if (req->cmd == CMD_RUN &&
	    cmdrun_check_patterns(&req->run, err, errlen) == -1)
		return -1;
	if (req->cmd == CMD_SCHEDULE && !executable_exists(req->exec)) {
		snprintf(err, errlen, "unknown executable '%s': no such "
		    "program in the tasks directory", req->exec);
		return -1;
	}
	/* A description added since start-up is picked up here. */
	if (req->cmd == CMD_SCHEDULE &&
	    taskdesc_find(&srv.descs, req->exec) == NULL)
		load_descs();
	memset(&sr, 0, sizeof sr);
	sr.cmd = req->cmd == CMD_RUN ? &req->run : NULL;
	sr.array = req->array;
	sr.array_index = req->array_index;
	sr.array_max = req->array_max;
	sr.cores = req->cores;
	sr.memory_mb = req->memory_mb;
	sr.tags = req->tags;
	sr.exec = req->exec;
	sr.prio = req->prio;
	sr.path = req->path;
	sr.params = req->params;
	sr.nbind = req->nbind;
	sr.bind = req->bind;
	sr.client = client;
	sr.user = user;
	uuid_generate_random(raw);
	uuid_unparse_lower(raw, uuid);
	return node_schedule(srv.core, &sr, uuid, clock_node_ms(), err,
	    errlen);
}

static void
do_schedule(struct client *c, const struct client_req *req)
{
	char	uuid[UUID_STRLEN + 1], err[256], reply[64];

	if (schedule_request(req, client_addr(c), client_user(c), uuid, err,
	    sizeof err) == -1) {
		client_replyf(c, "ERROR %s\n", err);
		return;
	}
	snprintf(reply, sizeof reply, "SCHEDULED %s\n", uuid);
	client_reply(c, 1, reply);	/* once the journal has it */
	carry_out();
}

int
server_schedule_line(const char *line, const char *client, const char *user,
    char *uuid, char *err, size_t errlen)
{
	struct client_req	*req = malloc(sizeof *req);
	int			 rc = -1;

	if (req == NULL)
		snprintf(err, errlen, "out of memory");
	else if (wire_client_parse(line, strlen(line), req, err, errlen) ==
	    0) {
		if (req->cmd != CMD_SCHEDULE && req->cmd != CMD_RUN)
			snprintf(err, errlen, "not a SCHEDULE or RUN");
		else
			rc = schedule_request(req, client, user, uuid, err,
			    errlen);
	}
	free(req);
	carry_out();
	return rc;
}

int
server_cancel(const char *uuid, char *err, size_t errlen)
{
	int	rc = node_cancel(srv.core, uuid, clock_node_ms(), err, errlen);

	carry_out();
	return rc;
}

void
server_sync(void)
{
	journal_commit();
}

const struct taskdesc_set *
server_descs(void)
{
	return &srv.descs;
}

/* uuid's record in the history (v, n: history_read's), or NULL. */
static const struct task *
history_lookup(struct task *const *v, size_t n, const char *uuid)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i]->uuid, uuid) == 0)
			return v[i];
	return NULL;
}

/*
 * SUBSCRIBE: where each task stands now, then its changes.  A task that
 * left the map for the history is told as it ended there.
 */
static void
do_subscribe(struct client *c, const struct client_req *req)
{
	const struct task	*t[SUBSCRIBE_MAX];
	struct task		**hist = NULL;
	char			  line[CLIENT_LINE_MAX + 512];
	size_t			  off, nhist = 0, k;
	int			  i, read_history = 0;

	for (i = 0; i < req->nuuid; i++) {
		if ((t[i] = node_find(srv.core, req->uuid[i])) != NULL)
			continue;
		if (!read_history) {
			hist = history_read(&nhist);
			read_history = 1;
		}
		if ((t[i] = history_lookup(hist, nhist, req->uuid[i])) ==
		    NULL) {
			client_replyf(c, "ERROR unknown task %s\n",
			    req->uuid[i]);
			goto done;
		}
	}
	off = snprintf(line, sizeof line, "SUBSCRIBED");
	for (i = 0; i < req->nuuid; i++) {
		if (client_subscribe(c, req->uuid[i]) == -1) {
			client_replyf(c, "ERROR out of memory\n");
			goto done;
		}
		if (off + UUID_STRLEN + 3 < sizeof line)
			off += snprintf(line + off, sizeof line - off, " %s",
			    req->uuid[i]);
	}
	snprintf(line + off, sizeof line - off, "\n");
	client_reply(c, 0, line);
	/* Where each task stands now, so a late subscriber misses nothing. */
	for (i = 0; i < req->nuuid; i++) {
		wire_progress_line(t[i], line, sizeof line);
		progress_extras(line, sizeof line, t[i]);
		client_reply(c, 0, line);
	}
done:
	for (k = 0; k < nhist; k++)
		task_free(hist[k]);
	free(hist);
}

static void
do_cancel(struct client *c, const struct client_req *req)
{
	char	err[256];

	if (node_cancel(srv.core, req->uuid[0], clock_node_ms(), err,
	    sizeof err) == -1) {
		client_replyf(c, "ERROR %s\n", err);
		return;
	}
	/* The reply waits for the end a majority confirms: the cancel's,
	 * or a result's that won the race (clients.c answers). */
	client_await_end(c, req->uuid[0]);
	carry_out();
}

/* Collect a multi-line reply, then send it as one piece. */
struct text {
	char	*buf;
	size_t	 len, cap;
};

static void __attribute__((format(printf, 2, 3)))
text_add(struct text *x, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(x->buf + x->len, x->cap - x->len, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (x->len + n < x->cap) {
			x->len += n;
			return;
		}
		x->cap = (x->cap + n + 1) * 2;
		if ((x->buf = realloc(x->buf, x->cap)) == NULL)
			abort();
	}
}

static void
seconds_or_dash(char *buf, size_t size, int64_t ms)
{
	if (ms < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.1f", ms / 1000.0);
}

/* TASK lines of v (in order) that the request's state filter lets by:
 * ... est eta, the run's expected length and end from now (s, or -). */
static void
task_lines(struct text *x, struct task *const *v, size_t n,
    const struct client_req *req)
{
	int64_t	now = clock_node_ms(), run, end;
	char	est[32], eta[32];
	size_t	i;

	for (i = 0; i < n; i++) {
		const struct task *t = v[i];
		if (req->has_state && (t->state != req->state ||
		    (req->suspended_only && !t->suspended)))
			continue;
		/* Estimates for the live map only; the history has ended. */
		run = end = -1;
		if (req->cmd != CMD_HISTORY && !task_is_final(t->state)) {
			run = node_task_run_estimate(srv.core, t);
			end = node_task_end_estimate(srv.core, t, now);
		}
		seconds_or_dash(est, sizeof est, run);
		seconds_or_dash(eta, sizeof eta, end >= 0 ? end - now : -1);
		text_add(x, "TASK %s %s %s %s %d %s %s %s %s", t->uuid,
		    t->exec, task_prio_name(t->prio), task_shown_state(t),
		    t->state == TASK_TERMINATED ? 100 : t->progress,
		    t->scheduled_by, t->running_on[0] != '\0' ?
		    t->running_on : "-", est, eta);
		text_add(x, " submitted=%lld", (long long)t->submit_ms);
		if (t->array[0] != '\0')
			text_add(x, " array=%s:%d", t->array, t->array_index);
		/* Why it waits, to the end of the line (it has blanks). */
		if (req->cmd != CMD_HISTORY && t->state == TASK_READY) {
			char why[REASON_MAXLEN + 1];
			node_task_waiting(srv.core, t, why, sizeof why);
			if (why[0] != '\0')
				text_add(x, " %s", why);
		}
		text_add(x, "\n");
	}
}

/* TASKS: the map; HISTORY: the tasks retired from it. */
static void
do_tasks(struct client *c, const struct client_req *req)
{
	struct task	**v;
	struct text	  x = { NULL, 0, 0 };
	size_t		  n, i;

	v = req->cmd == CMD_HISTORY ? history_read(&n) :
	    node_tasks_sorted(srv.core, &n);
	if (v == NULL) {
		client_replyf(c, "ERROR %s\n", req->cmd == CMD_HISTORY ?
		    "cannot read the history" : "out of memory");
		return;
	}
	text_add(&x, "%s", "");
	task_lines(&x, v, n, req);
	text_add(&x, ".\n");
	client_reply(c, 0, x.buf);
	free(x.buf);
	if (req->cmd == CMD_HISTORY)
		for (i = 0; i < n; i++)
			task_free(v[i]);
	free(v);
}

/* One NODES line for a peer.  Busy slots come from the replicated map:
 * fresher than the peer's last heartbeat. */
/* The end of a NODE line: what the node offers, if it said. */
static void
caps_fields(struct text *x, int cores, int64_t memory_mb, const char *tags)
{
	if (cores > 0)
		text_add(x, " cores=%d memory=%lld tags=%s", cores,
		    (long long)memory_mb, tags[0] != '\0' ? tags : "-");
	text_add(x, "\n");
}

static void
nodes_peer_cb(const struct peer *p, void *arg)
{
	struct api_peer	v;

	api_peer_view(p, &v);
	text_add(arg, "NODE %s %s %s %s %d/%d %d", p->name, p->client_addr,
	    v.role, v.state, v.free, p->slots, p->reputation);
	caps_fields(arg, v.cores, v.memory_mb, v.tags);
}

/* REJECTED <count> <last source> <why>: dropped datagrams, by reason. */
static void
nodes_rejected_cb(const char *why, uint64_t count, const char *last_from,
    void *arg)
{
	text_add(arg, "REJECTED %" PRIu64 " %s %s\n", count, last_from, why);
}

static void
do_nodes(struct client *c)
{
	struct text		x = { NULL, 0, 0 };
	struct node_status	st;
	char			clash_from[64];

	node_status(srv.core, &st);
	text_add(&x, "NODE %s %s %s %s %d/%d %d", srv.cfg->name,
	    srv.address, st.is_master ? "master" : "peer",
	    st.volunteer_state, st.slots - st.running, st.slots,
	    srv.reputation);
	caps_fields(&x, srv.caps.cores, srv.caps.memory_mb, srv.caps.tags);
	node_each_peer(srv.core, nodes_peer_cb, &x);
	if (clash_active(clash_from, sizeof clash_from))
		text_add(&x, "CLASH %s\n", clash_from);
	peers_each_rejected(nodes_rejected_cb, &x);
	text_add(&x, ".\n");
	client_reply(c, 0, x.buf);
	free(x.buf);
}

/* API: the JSON API's answer, as "JSON <status> <bytes>" and the
 * bytes (volery tasks --json): one encoder for HTTP and the command
 * line. */
static void
do_api(struct client *c, const struct client_req *req)
{
	int	 code;
	json_t	*v = api_get(req->api_uri, &code);
	char	*text = v != NULL ? json_dumps(v, JSON_COMPACT) : NULL;

	json_decref(v);
	if (text == NULL) {
		client_replyf(c, "ERROR out of memory\n");
		return;
	}
	client_replyf(c, "JSON %d %zu\n", code, strlen(text) + 1);
	client_reply(c, 0, text);
	client_reply(c, 0, "\n");
	free(text);
}

static void
do_idle(struct client *c, const struct client_req *req)
{
	if (!client_is_loopback(c)) {
		client_replyf(c, "ERROR IDLE is accepted from this host "
		    "only\n");
		return;
	}
	log_info("screensaver hook: IDLE %s from %s",
	    req->idle == VOL_FORCE_ON ? "on" : req->idle == VOL_FORCE_OFF ?
	    "off" : "auto", client_addr(c));
	idle_force(req->idle);
	client_reply(c, 0, "OK\n");
}

/*
 * LOG reads at most the last LOG_SCAN_MAX bytes of the log (older lines
 * are for `volery log FILE` on the host), in a thread (logjob.c): a big
 * log or a costly expression never stalls the node's heartbeats.
 */
#define LOG_SCAN_MAX (16 << 20)

static void
skip_to_recent(FILE *f)
{
	int	c;

	if (fseeko(f, 0, SEEK_END) == 0 && ftello(f) > LOG_SCAN_MAX) {
		fseeko(f, -LOG_SCAN_MAX, SEEK_END);
		while ((c = getc(f)) != EOF && c != '\n')
			;	/* from the next whole line */
	} else
		rewind(f);
}

/* A line of a LOG answer, as the search thread finds it; NULL: done. */
static void
log_out_cb(const char *line, size_t len, void *arg)
{
	struct client	*c = arg;
	char		 buf[CLIENT_LINE_MAX + 2];

	if (line == NULL) {
		/* Unhold first: the reply may drop (free) the client. */
		client_unhold(c);
		client_reply(c, 0, ".\n");
		return;
	}
	/* Log lines are ours and short; a longer one is cut. */
	snprintf(buf, sizeof buf, "%.*s\n", (int)(len < CLIENT_LINE_MAX ?
	    len : CLIENT_LINE_MAX), line);
	client_reply(c, 0, buf);
}

static void
log_cancel_cb(void *job)
{
	logjob_cancel(job);
}

struct logjob *
server_log_search(struct log_query *q, const char *since, const char *until,
    int nlines, logjob_fn *out, void *arg, int *status, char *err,
    size_t errlen)
{
	struct log_search	*s;
	struct logjob		*j;
	FILE			*f;

	*status = 400;
	if (logjob_running() >= LOGJOB_MAX) {
		*status = 503;
		snprintf(err, errlen, "the node searches its log for %d "
		    "clients already; try again", LOGJOB_MAX);
		return NULL;
	}
	if ((since != NULL && log_time_parse(since, time(NULL), 0,
	    q->since) == -1) || (until != NULL && log_time_parse(until,
	    time(NULL), 1, q->until) == -1)) {
		snprintf(err, errlen, "bad time: YYYY-MM-DDTHH:MM[:SS], "
		    "YYYY-MM-DD, HH:MM or N[smhd] ago");
		return NULL;
	}
	if ((s = log_search_new(q, err, errlen)) == NULL)
		return NULL;
	*status = 500;
	if ((f = log_read_open()) == NULL) {
		snprintf(err, errlen, "cannot read the log: %s",
		    strerror(errno));
		log_search_free(s);
		return NULL;
	}
	skip_to_recent(f);
	if ((j = logjob_start(srv.base, s, f, nlines, out, arg)) == NULL)
		snprintf(err, errlen, "cannot search the log: %s",
		    strerror(errno));
	return j;
}

/* LOG: the last matching lines of our log file. */
static void
do_log(struct client *c, const struct client_req *req)
{
	struct log_query	 q;
	struct logjob		*j;
	char			 err[300];
	int			 status;

	memset(&q, 0, sizeof q);
	q.regex = req->regex;
	q.has_level = req->has_level;
	q.level = req->level;
	q.uuid = req->nuuid > 0 ? req->uuid[0] : NULL;
	if ((j = server_log_search(&q, req->since, req->until, req->nlines,
	    log_out_cb, c, &status, err, sizeof err)) == NULL) {
		client_replyf(c, "ERROR %s\n", err);
		return;
	}
	client_hold(c, j, log_cancel_cb);
}

/* The client address the peer called name gave in its heartbeats. */
struct addr_of {
	const char	*name;
	char		 addr[ADDR_MAXLEN + 1];
};

static void
addr_of_cb(const struct peer *p, void *arg)
{
	struct addr_of	*a = arg;

	if (strcmp(p->name, a->name) == 0)
		snprintf(a->addr, sizeof a->addr, "%s", p->client_addr);
}

struct output_req {
	struct task	*t;		/* a copy: the map may change */
	int		 stream, follow;
	int64_t		 offset;
};

/* OUTPUT, once the replies before it are out: served from here, or
 * asked of the node that ran the task. */
static void
output_cb(struct client *c, void *arg)
{
	struct output_req	*o = arg;
	struct addr_of		 a = { o->t->running_on, "" };
	char			 line[256];

	if (c == NULL)
		;
	else if (strcmp(o->t->running_on, node_name(srv.core)) == 0)
		output_serve(c, o->t, o->stream, o->follow, o->offset);
	else {
		node_each_peer(srv.core, addr_of_cb, &a);
		snprintf(line, sizeof line, "OUTPUT %s%s%s -c %lld",
		    o->t->uuid, o->stream == OUTPUT_STDERR ? " -e" : "",
		    o->follow ? " -f" : "", (long long)o->offset);
		if (a.addr[0] == '\0')
			client_replyf(c, "ERROR task %s ran on %s, a node "
			    "this one does not know\n", o->t->uuid,
			    o->t->running_on);
		else
			outfetch_start(c, o->t->running_on, a.addr, line);
	}
	task_free(o->t);
	free(o);
}

static void
do_output(struct client *c, const struct client_req *req)
{
	const struct task	*t = node_find(srv.core, req->uuid[0]);
	struct task		**hist = NULL;
	struct output_req	*o;
	char			 rec[RECORD_LINE_MAX], err[128];
	size_t			 nhist = 0, i;

	if (t == NULL) {
		hist = history_read(&nhist);
		t = history_lookup(hist, nhist, req->uuid[0]);
	}
	if (t == NULL)
		client_replyf(c, "ERROR unknown task %s\n", req->uuid[0]);
	else if (t->running_on[0] == '\0')
		client_replyf(c, "ERROR task %s has not run yet (%s)\n",
		    t->uuid, task_shown_state(t));
	else if ((o = calloc(1, sizeof *o)) == NULL ||
	    wire_task_encode(t, rec, sizeof rec) == -1 ||
	    (o->t = wire_task_decode(rec, strlen(rec), err,
	    sizeof err)) == NULL) {
		free(o);
		client_replyf(c, "ERROR out of memory\n");
	} else {
		o->stream = req->out_stderr ? OUTPUT_STDERR : OUTPUT_STDOUT;
		o->follow = req->out_follow;
		o->offset = req->out_offset;
		client_after_replies(c, output_cb, o);
	}
	for (i = 0; i < nhist; i++)
		task_free(hist[i]);
	free(hist);
}

static void
client_line(struct client *c, const char *line, size_t len)
{
	struct client_req	*req;
	char			 err[1024];

	if ((req = malloc(sizeof *req)) == NULL) {
		client_reply(c, 0, "ERROR out of memory\n");
		return;
	}
	if (wire_client_parse(line, len, req, err, sizeof err) == -1) {
		client_replyf(c, "ERROR %s\n", err);
		free(req);
		return;
	}
	switch (req->cmd) {
	case CMD_SCHEDULE:
	case CMD_RUN:
		do_schedule(c, req);
		break;
	case CMD_SUBSCRIBE:
		do_subscribe(c, req);
		break;
	case CMD_CANCEL:
		do_cancel(c, req);
		break;
	case CMD_TASKS:
	case CMD_HISTORY:
		do_tasks(c, req);
		break;
	case CMD_ACCOUNT:
		account_reply(c, srv.core, req);
		break;
	case CMD_API:
		do_api(c, req);
		break;
	case CMD_NODES:
		do_nodes(c);
		break;
	case CMD_IDLE:
		do_idle(c, req);
		break;
	case CMD_LOG:
		do_log(c, req);
		break;
	case CMD_OUTPUT:
		do_output(c, req);
		break;
	case CMD_HELP: {
		char help[4096];
		if (wire_client_help(help, sizeof help) == -1)
			client_replyf(c, "ERROR help does not fit\n");
		else
			client_reply(c, 0, help);
		break;
	}
	case CMD_QUIT:
		client_reply(c, 0, "BYE\n");
		client_quit(c);
		break;
	}
	free(req);
}

static void
peer_recv(const struct peer_msg *m, const char *addr)
{
	node_peer_msg(srv.core, m, addr, clock_node_ms());
	carry_out();
	if (m->type == PEER_HEARTBEAT)
		pooltime_observe(m->sender, m->volunteer, m->beat_ms,
		    clock_wall_ms());
}

/*
 * The client port and the UNIX socket (<state_dir>/volery.sock unless
 * configured); remote clients need the operator key, if one is set.
 */
static void
open_clients(void)
{
	struct clients_opts	co;
	char			err[1024], path[PATH_MAX + 32];

	memset(&co, 0, sizeof co);
	co.ring = &srv.ring;		/* filled by open_peers() */
	co.max_clients = srv.cfg->max_clients;
	if (srv.cfg->operator_key[0] != '\0') {
		if (keys_read(srv.cfg->operator_key, srv.operator_key, err,
		    sizeof err) == -1)
			fatalx("operator key: %s", err);
		co.operator_key = srv.operator_key;
	}
	if (clients_listen(srv.base, srv.cfg->listen, client_line, &co,
	    srv.address, sizeof srv.address, err, sizeof err) == -1)
		fatalx("%s", err);
	if (srv.cfg->socket[0] != '\0')
		snprintf(path, sizeof path, "%s", srv.cfg->socket);
	else
		snprintf(path, sizeof path, "%s/volery.sock",
		    srv.cfg->state_dir);
	if (clients_listen_unix(srv.base, path, err, sizeof err) == -1)
		fatalx("%s", err);
	log_msg(VLOG_NORMAL, "clients: local ones on %s%s", path,
	    co.operator_key != NULL ? "; remote operators with the "
	    "operator key" : strncmp(srv.address, "127.", 4) == 0 ||
	    strncmp(srv.address, "[::1]", 5) == 0 ? "" :
	    "; no operator key, so no remote client may ask anything");
}

/*
 * The peer sockets, sealed with the cluster keys -- or refuse to start:
 * a node that can hear the LAN needs a key or an explicit <insecure/>.
 */
static void
open_peers(const struct node_config *nc)
{
	struct peers_opts	po;
	char			err[1024], made[PATH_MAX + 32];

	if (keys_load(srv.cfg, &srv.ring, made, sizeof made, err,
	    sizeof err) == -1)
		fatalx("%s", err);
	if (made[0] != '\0')
		log_info("made a cluster key for this host in %s", made);
	if (srv.ring.n == 0)
		log_warnx("<insecure/>: peer datagrams are neither sealed nor "
		    "checked; anyone on the LAN can take this pool over");
	srv.incarnation = keys_incarnation(srv.cfg->state_dir);
	memset(&po, 0, sizeof po);
	po.cluster = srv.cfg->cluster;
	po.name = srv.cfg->name;
	po.incarnation = srv.incarnation;
	po.port = srv.cfg->peer_port;
	po.broadcast = srv.cfg->broadcast;
	po.ring = &srv.ring;
	po.max_senders = srv.cfg->max_peers;
	/* Two hosts given one name: the first keeps it while it lives,
	 * quiet or not, and the other is dropped as an impostor. */
	po.bind_ms = node_config_silence_ms(nc);
	po.clash = clash_heard;
	if (clash_init(srv.base, srv.cfg->name, po.bind_ms, decide) == -1)
		fatalx("out of memory");
	if (peers_open(srv.base, &po, peer_recv, err, sizeof err) == -1)
		fatalx("%s", err);
}

/*
 * <http>: the JSON API and its event stream.  On an address other hosts
 * reach, only with a cluster key (their operators log in with it).
 */
static void
open_http(void)
{
	struct api_self	 self;
	char		 bound[ADDR_MAXLEN + 8], err[256];
	const char	*a = srv.cfg->http;
	int		 local = strncmp(a, "127.", 4) == 0 ||
			    strncmp(a, "[::1]", 5) == 0 ||
			    strncmp(a, "localhost:", 10) == 0;

	self.address = srv.address;
	self.reputation = srv.reputation;
	self.cores = srv.caps.cores;
	self.memory_mb = srv.caps.memory_mb;
	self.tags = srv.caps.tags;
	api_init(srv.core, &self);
	if (a[0] == '\0')
		return;
	if (!local && srv.ring.n == 0) {
		log_warnx("http: %s is reachable from other hosts and the "
		    "cluster has no key (<insecure/>): not served", a);
		return;
	}
	if (http_open(srv.base, a, srv.cfg->operator_key[0] != '\0' ?
	    srv.operator_key : NULL, bound, sizeof bound, err, sizeof err) == -1)
		fatalx("%s", err);
	log_msg(VLOG_NORMAL, "dashboard and API on http://%s/%s", bound,
	    local ? "" : srv.cfg->operator_key[0] != '\0' ? "; other hosts "
	    "log in with the operator key" : "; no <operator_key>, so no "
	    "other host may log in");
}

static int
restore_cb(struct task *t, void *arg)
{
	return node_restore(srv.core, t);
}

static void
member_cb(const char *name, void *arg)
{
	node_restore_member(srv.core, name, clock_node_ms());
}

static void
stop_cb(evutil_socket_t sig, short what, void *arg)
{
	log_msg(VLOG_NORMAL, "node %s stopping (signal %d)", srv.cfg->name,
	    (int)sig);
	event_base_loopbreak(srv.base);
}

static void
reopen_cb(evutil_socket_t sig, short what, void *arg)
{
	if (log_reopen() == -1)
		log_warn("cannot reopen log %s", srv.cfg->log_file);
	else
		log_msg(VLOG_NORMAL, "log file reopened (SIGHUP)");
}

static int
suspendable_cb(void)
{
	return node_suspendable(srv.core);
}

/* The idle probes' decision, unless another node has our name: then
 * we take no tasks (those running go on). */
static void
decide(void)
{
	struct vol_decision	d = srv.decision;

	if (clash_active(NULL, 0)) {
		d.volunteer = 0;
		d.name = "clash";
	}
	node_volunteer(srv.core, &d, clock_node_ms());
	carry_out();
	pooltime_observe(srv.cfg->name, d.name, 0, clock_wall_ms());
}

static void
volunteer_cb(const struct vol_decision *d)
{
	srv.decision = *d;
	decide();
}

int
server_run(const struct config *cfg, int echo)
{
	struct node_config	 nc;
	struct runner_hooks	 hooks = { runner_msg, runner_exit };
	struct idle_hooks	 ihooks = { suspendable_cb, volunteer_cb };
	struct vol_decision	 first;
	struct runner_opts	 ro;
	struct task		**v;
	char			 err[512], warn[256];
	size_t			 n;
	int			 loaded;

	memset(&srv, 0, sizeof srv);
	srv.cfg = cfg;
	signal(SIGPIPE, SIG_IGN);
	if (log_open(cfg->log_file, cfg->log_level, echo) == -1) {
		fprintf(stderr, "volery: log file %s: %s\n", cfg->log_file,
		    strerror(errno));
		return 1;
	}
	log_msg(VLOG_NORMAL, "node %s starting (config %s, pid %d)",
	    cfg->name, cfg->file[0] != '\0' ? cfg->file : "built-in",
	    (int)getpid());
	if ((srv.base = event_base_new()) == NULL) {
		fatalx("event_base_new failed");
	}
	if (runas_resolve(cfg->run_as, &srv.user, warn, sizeof warn, err,
	    sizeof err) == -1)
		fatalx("%s", err);
	if (warn[0] != '\0')
		log_warnx("%s", warn);
	if (load_descs() == -1)
		return 1;
	log_info("%zu task descriptions in %s", srv.descs.n,
	    cfg->tasks_dir);

	memset(&ro, 0, sizeof ro);
	/* Runs start in a directory of their own: the path must not be
	 * relative to ours. */
	if (realpath(cfg->tasks_dir, srv.tasks_dir) == NULL)
		fatalx("tasks directory %s: %s", cfg->tasks_dir,
		    strerror(errno));
	ro.tasks_dir = srv.tasks_dir;
	ro.user = &srv.user;
	ro.nice = cfg->mode == VOL_SCREENSAVER ? 19 : 0;
	ro.idle_io = cfg->mode == VOL_SCREENSAVER;
	ro.grace_ms = cfg->cancel_grace_ms;
	if (job_init(srv.base) == -1 || runner_init(srv.base, &hooks,
	    &ro) == -1) {
		fatalx("cannot watch child processes");
	}
	srv.tick_ev = evtimer_new(srv.base, tick_cb, NULL);
	srv.commit_ev = event_new(srv.base, -1, 0, commit_cb, NULL);

	if (journal_open(cfg->state_dir, err, sizeof err) == -1 ||
	    history_open(cfg->state_dir, err, sizeof err) == -1 ||
	    rundir_init(cfg->state_dir, &srv.user, err, sizeof err) == -1 ||
	    output_init(cfg->state_dir, &srv.user, cfg->name, err,
	    sizeof err) == -1) {
		fatalx("%s", err);
	}
	outfetch_init(srv.base, &srv.ring);
	/* Before the journal's runs are taken again: what an earlier start
	 * left running dies first. */
	contain_init(cfg->state_dir, cfg->name);
	pooltime_open(cfg->state_dir);
	srv.reputation = reputation_start(cfg->state_dir, cfg->reputation);
	memset(&nc, 0, sizeof nc);
	snprintf(nc.name, sizeof nc.name, "%s", cfg->name);
	nc.slots = cfg->slots;
	host_caps(&nc, cfg);
	srv.caps = nc;
	nc.max_attempts = cfg->max_attempts;
	nc.ageing_ms = (int64_t)cfg->ageing_s * 1000;
	nc.order = cfg->order;
	nc.placement_blind = cfg->placement_blind;
	nc.reputation = srv.reputation;
	nc.dequeue_window_ms = cfg->dequeue_window_ms;
	nc.election_window_ms = cfg->election_window_ms;
	nc.progress_interval_ms = cfg->progress_interval_ms;
	nc.failure_timeout_ms = cfg->failure_timeout_ms;
	nc.node_timeout_ms = cfg->node_timeout_ms;
	nc.quiet_heartbeat_ms = cfg->quiet_heartbeat_ms;
	nc.membership_timeout_ms = (int64_t)cfg->membership_timeout_s * 1000;
	nc.retention_ms = (int64_t)cfg->retention_s * 1000;
	nc.max_peers = cfg->max_peers;
	nc.peer_evict_ms = (int64_t)cfg->peer_evict_s * 1000;
	nc.log_min = cfg->log_level;
	/* Clients are served once the loop runs, after the journal. */
	open_clients();
	nc.client_port = atoi(strrchr(srv.address, ':') + 1);
	if ((srv.core = node_new(&nc, &srv.descs)) == NULL) {
		fatalx("out of memory");
	}
	if (idle_init(srv.base, cfg, &ihooks, &first) == -1) {
		fatalx("cannot start the idle probes");
	}
	/* Join the cluster already knowing whether we take tasks. */
	srv.decision = first;
	node_set_volunteer(srv.core, first.volunteer, first.name,
	    clock_node_ms());
	pooltime_observe(cfg->name, first.name, 0, clock_wall_ms());
	if ((loaded = journal_load(restore_cb, NULL)) == -1) {
		fatal("journal");
	}
	members_load(cfg->state_dir, member_cb, NULL);
	node_recover(srv.core, clock_node_ms());
	open_peers(&nc);
	open_http();
	/* Start from a compact journal holding exactly the map. */
	if ((v = node_tasks_sorted(srv.core, &n)) != NULL) {
		if (journal_rewrite(v, n) == -1)
			return 1;
		free(v);
	}
	if (loaded > 0)
		log_msg(VLOG_NORMAL, "journal: %zu tasks restored", n);
	node_start(srv.core, clock_node_ms());
	carry_out();

	srv.sigterm_ev = evsignal_new(srv.base, SIGTERM, stop_cb, NULL);
	srv.sigint_ev = evsignal_new(srv.base, SIGINT, stop_cb, NULL);
	evsignal_add(srv.sigterm_ev, NULL);
	evsignal_add(srv.sigint_ev, NULL);
	srv.sighup_ev = evsignal_new(srv.base, SIGHUP, reopen_cb, NULL);
	evsignal_add(srv.sighup_ev, NULL);
	log_msg(VLOG_NORMAL, "node %s listening on %s; cluster %s on UDP %d "
	    "(broadcast %s, replies to %d)", cfg->name, srv.address,
	    cfg->cluster, cfg->peer_port, cfg->broadcast, peers_reply_port());

	event_base_dispatch(srv.base);

	/* Hand our runs back to the cluster now, not after a timeout. */
	node_stop(srv.core, clock_node_ms());
	carry_out();
	journal_commit();
	idle_shutdown();
	runner_shutdown();
	output_shutdown();
	contain_shutdown();
	job_shutdown();
	peers_close();
	clash_close();
	reputation_clean_stop(cfg->state_dir);
	pooltime_observe(cfg->name, srv.decision.name, 0, clock_wall_ms());
	pooltime_save();
	journal_close();
	history_close();
	http_close();
	clients_close_all();
	event_free(srv.tick_ev);
	event_free(srv.commit_ev);
	event_free(srv.sigterm_ev);
	event_free(srv.sigint_ev);
	event_free(srv.sighup_ev);
	node_free(srv.core);
	taskdesc_clear(&srv.descs);
	runas_free(&srv.user);
	event_base_free(srv.base);
	log_msg(VLOG_NORMAL, "node %s stopped", cfg->name);
	log_close();
	return 0;
}
