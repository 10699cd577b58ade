/*
 * server.c -- the node's event loop: its sockets (clients, peers, HTTP),
 * signals and start-up.  Client lines, task output, process exits,
 * datagrams and the idle probes' decisions become core events; what the
 * core asks for then is carried out (actions.c).
 */

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

#include "actions.h"
#include "api.h"
#include "blobfetch.h"
#include "ckpts.h"
#include "clash.h"
#include "clients.h"
#include "clock.h"
#include "config.h"
#include "contain.h"
#include "history.h"
#include "hostcaps.h"
#include "nodecfg.h"
#include "http.h"
#include "identity.h"
#include "idle.h"
#include "infiles.h"
#include "job.h"
#include "journal.h"
#include "keys.h"
#include "log.h"
#include "members.h"
#include "node.h"
#include "notify.h"
#include "outfetch.h"
#include "output.h"
#include "owner.h"
#include "peer.h"
#include "peers.h"
#include "pooltime.h"
#include "quarantine.h"
#include "reputation.h"
#include "requests.h"
#include "rundir.h"
#include "scratch.h"
#include "runner.h"
#include "secrets.h"
#include "throttle.h"
#include "server.h"
#include "service.h"
#include "stay.h"
#include "task.h"
#include "taskdesc.h"
#include "wire.h"
#include "xmllazy.h"

static struct {
	const struct config	*cfg;
	struct event_base	*base;
	struct node		*core;
	struct taskdesc_set	 descs;
	char			 tasks_dir[PATH_MAX];	/* absolute */
	struct event		*sigterm_ev, *sigint_ev, *sighup_ev;
	char			 address[ADDR_MAXLEN + 1];
	int			 reputation;
	uint64_t		 incarnation;
	struct keyring		 ring;		/* n == 0: <insecure/> */
	uint8_t			 operator_key[SEAL_KEY_BYTES];
	struct node_config	 caps;		/* what we offer (NODES) */
	struct vol_decision	 decision;	/* the idle probes' last */
	/* What the stages see of the node (actions.h, service.h,
	 * requests.h). */
	struct actions_env	 actions;
	struct service_env	 service;
	struct requests_env	 requests;
} srv;

static void	decide(void);

static void
runner_msg(const char *uuid, const struct runner_msg *m)
{
	if (m->type == RMSG_CHECKPOINT)		/* the store's first */
		ckpts_made(uuid, m->message);
	else
		node_runner_msg(srv.core, uuid, m, clock_node_ms());
	actions_carry_out();
}

static void
runner_exit(const char *uuid, const struct node_exit *e)
{
	node_runner_exit(srv.core, uuid, e, clock_node_ms());
	actions_carry_out();
}

static void
key_learnt(const char *name, const uint8_t *pk)
{
	node_peer_key(srv.core, name, pk, clock_node_ms());
	actions_carry_out();
}

static void
peer_recv(const struct peer_msg *m, const char *addr)
{
	if (m->type == PEER_SECRET_WANTED || m->type == PEER_SECRET) {
		secrets_recv(m, addr);
		return;
	}
	node_peer_msg(srv.core, m, addr, clock_node_ms());
	actions_carry_out();
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
	co.max_per_user = srv.cfg->max_clients_per_user;
	co.idle_s = srv.cfg->client_idle_s;
	if (srv.cfg->operator_key[0] != '\0') {
		if (keys_read(srv.cfg->operator_key, srv.operator_key, err,
		    sizeof err) == -1)
			fatalx("operator key: %s", err);
		co.operator_key = srv.operator_key;
	}
	if (clients_listen(srv.base, srv.cfg->listen, requests_line, &co,
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
	char			err[1024];

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
	po.skew_ms = nc->max_clock_skew_ms;
	po.relays = srv.cfg->relays;
	po.nrelays = srv.cfg->nrelays;
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
	self.containment = srv.caps.containment;
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
	actions_carry_out();
	pooltime_observe(srv.cfg->name, d.name, 0, clock_wall_ms());
}

static void
volunteer_cb(const struct vol_decision *d)
{
	srv.decision = *d;
	decide();
}

/* `volery sleep`: our runs back to the pool, which learns how to wake
 * us (wake.h). */
static void
sleeping_cb(void)
{
	node_sleep(srv.core, clock_node_ms());
	actions_carry_out();
}

int
server_run(const struct config *cfg, int echo)
{
	struct node_config	 nc;
	struct runner_hooks	 hooks = { runner_msg, runner_exit, ckpts_leaving,
				    actions_start_again };
	struct idle_hooks	 ihooks = { suspendable_cb, volunteer_cb,
				    sleeping_cb };
	struct vol_decision	 first;
	struct runner_opts	 ro;
	struct task		**v;
	char			 err[1024], warn[256];
	size_t			 n;
	int64_t			 alive;
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
	if ((srv.base = event_base_new()) == NULL)
		fatalx("event_base_new failed");
	if (owner_init(cfg->run_as, cfg->min_uid, cfg->slots, warn,
	    sizeof warn, err, sizeof err) == -1)
		fatalx("%s", err);
	if (warn[0] != '\0')
		log_warnx("%s", warn);
	srv.service.base = srv.base;
	srv.service.cfg = cfg;
	srv.service.user = owner_base();
	srv.service.descs = &srv.descs;
	service_init(&srv.service);
	if (service_load_descs() == -1)
		return 1;
	log_info("%zu task descriptions in %s", srv.descs.n, cfg->tasks_dir);

	memset(&ro, 0, sizeof ro);
	/* Runs start in a directory of their own: the path must not be
	 * relative to ours. */
	if (realpath(cfg->tasks_dir, srv.tasks_dir) == NULL)
		fatalx("tasks directory %s: %s", cfg->tasks_dir,
		    strerror(errno));
	ro.tasks_dir = srv.tasks_dir;
	ro.nice = cfg->mode == VOL_SCREENSAVER ? 19 : 0;
	ro.idle_io = cfg->mode == VOL_SCREENSAVER;
	ro.grace_ms = cfg->cancel_grace_ms;
	ro.max_procs = cfg->max_run_procs;
	scratch_init(srv.base, (int64_t)cfg->max_scratch_mb << 20);
	ro.memory_mb = cfg->run_memory_mb;
	if (job_init(srv.base) == -1 || runner_init(srv.base, &hooks,
	    &ro) == -1)
		fatalx("cannot watch child processes");
	srv.actions.base = srv.base;
	srv.actions.state_dir = cfg->state_dir;
	srv.actions.tasks_dir = srv.tasks_dir;
	srv.actions.descs = &srv.descs;
	srv.actions.commands = cfg->commands;
	if (actions_init(&srv.actions) == -1)
		fatalx("out of memory");

	if (journal_open(cfg->state_dir, err, sizeof err) == -1 ||
	    history_open(cfg->state_dir, err, sizeof err) == -1 ||
	    rundir_init(cfg->state_dir, owner_base(), err, sizeof err) == -1 ||
	    output_init(cfg->state_dir, cfg->name,
	    (int64_t)cfg->max_output_mb << 20, err, sizeof err) == -1)
		fatalx("%s", err);
	outfetch_init(srv.base, &srv.ring);
	blobfetch_init(srv.base, &srv.ring);
	/* Before the journal's runs are taken again: what an earlier start
	 * left running dies first. */
	contain_init(cfg->state_dir, cfg->name);
	throttle_init(cfg->on_return, cfg->throttle_percent,
	    cfg->mode == VOL_SCREENSAVER ? 19 : 0, cfg->name);
	pooltime_open(cfg->state_dir);
	srv.reputation = reputation_start(cfg->state_dir, cfg->reputation);
	memset(&nc, 0, sizeof nc);
	snprintf(nc.name, sizeof nc.name, "%s", cfg->name);
	nc.slots = cfg->slots;
	hostcaps_fill(&nc, cfg);
	snprintf(nc.containment, sizeof nc.containment, "%s", contain_how());
	srv.caps = nc;
	nodecfg_fill(&nc, cfg, srv.reputation);
	if (keys_open(cfg, &srv.ring, err, sizeof err) == -1 ||
	    identity_open(cfg, &srv.ring, clock_wall_ms(), err,
	    sizeof err) == -1)
		fatalx("%s", err);
	nc.sign_sk = identity_signing_key();
	/* Clients are served once the loop runs, after the journal. */
	open_clients();
	nc.client_port = atoi(strrchr(srv.address, ':') + 1);
	if ((srv.core = node_new(&nc, &srv.descs)) == NULL)
		fatalx("out of memory");
	srv.actions.core = srv.service.core = srv.requests.core = srv.core;
	if (secrets_open(srv.base, srv.core, cfg->state_dir,
	    actions_secrets_ready, err, sizeof err) == -1 ||
	    ckpts_init(srv.base, srv.core, cfg->state_dir, nc.max_checkpoint_bytes,
	    actions_start_again, actions_carry_out, err, sizeof err) == -1 ||
	    infiles_init(srv.core, cfg->state_dir, (int64_t)cfg->cache_mb << 20,
	    (int64_t)cfg->max_transfer_mb << 20, srv.address,
	    actions_start_again, actions_inputs_failed, err, sizeof err) == -1)
		fatalx("%s", err);
	identity_on_learn(key_learnt);
	srv.requests.name = cfg->name;
	srv.requests.address = srv.address;
	srv.requests.reputation = srv.reputation;
	srv.requests.caps = &srv.caps;
	requests_init(&srv.requests);
	if (idle_init(srv.base, cfg, &ihooks, &first) == -1)
		fatalx("cannot start the idle probes");
	/* Join the cluster already knowing whether we take tasks. */
	srv.decision = first;
	node_set_volunteer(srv.core, first.volunteer, first.name,
	    clock_node_ms());
	pooltime_observe(cfg->name, first.name, 0, clock_wall_ms());
	if ((loaded = journal_load(restore_cb, NULL)) == -1)
		fatal("journal");
	members_load(cfg->state_dir, member_cb, NULL);
	if (quarantine_load(cfg->state_dir, err, sizeof err) == 0)
		(void)node_quarantine_restore(srv.core, err, clock_node_ms());
	if (stay_open(srv.base, cfg->state_dir, err, sizeof err, &alive) == 0)
		(void)node_stay_restore(srv.core, err, alive, clock_node_ms());
	node_recover(srv.core, clock_node_ms());
	ckpts_sweep();
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
	actions_carry_out();

	srv.sigterm_ev = evsignal_new(srv.base, SIGTERM, stop_cb, NULL);
	srv.sigint_ev = evsignal_new(srv.base, SIGINT, stop_cb, NULL);
	evsignal_add(srv.sigterm_ev, NULL);
	evsignal_add(srv.sigint_ev, NULL);
	srv.sighup_ev = evsignal_new(srv.base, SIGHUP, reopen_cb, NULL);
	evsignal_add(srv.sighup_ev, NULL);
	log_msg(VLOG_NORMAL, "node %s listening on %s; cluster %s on UDP %d "
	    "(broadcast %s, replies to %d)", cfg->name, srv.address,
	    cfg->cluster, cfg->peer_port, cfg->broadcast, peers_reply_port());

	xmllazy_release();	/* read what XML there was to read */
	event_base_dispatch(srv.base);

	/* Hand our runs back to the cluster now, not after a timeout. */
	node_stop(srv.core, clock_node_ms());
	actions_carry_out();
	journal_commit();
	idle_shutdown();
	runner_shutdown();
	secrets_close();
	ckpts_close();
	infiles_close();
	output_shutdown();
	contain_shutdown();
	throttle_shutdown();
	job_shutdown();
	peers_close();
	clash_close();
	reputation_clean_stop(cfg->state_dir);
	stay_close();
	pooltime_observe(cfg->name, srv.decision.name, 0, clock_wall_ms());
	pooltime_save();
	journal_close();
	history_close();
	http_close();
	clients_close_all();
	actions_shutdown();
	notify_clear();
	event_free(srv.sigterm_ev);
	event_free(srv.sigint_ev);
	event_free(srv.sighup_ev);
	node_free(srv.core);
	taskdesc_clear(&srv.descs);
	owner_free();
	event_base_free(srv.base);
	log_msg(VLOG_NORMAL, "node %s stopped", cfg->name);
	log_close();
	return 0;
}
