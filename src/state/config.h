/*
 * config.h -- the node's configuration (DESIGN.md section 7): an
 * embedded loopback-only default, overridden by an XML file.
 */
#ifndef VOLERY_CONFIG_H
#define VOLERY_CONFIG_H

#include <limits.h>
#include <stdint.h>

#include "bounds.h"
#include "node.h"
#include "outbox.h"
#include "runas.h"
#include "seal.h"
#include "volunteer.h"

#define IDLE_COMMAND_MAX 1024

struct config {
	char		file[PATH_MAX];	/* "" for the embedded default */
	char		name[NAME_MAXLEN + 1];
	char		cluster[NAME_MAXLEN + 1];
	int		reputation;
	char		listen[ADDR_MAXLEN + 1];
	char		http[ADDR_MAXLEN + 1];	/* "": no HTTP (dashboard, API) */
	int		peer_port;
	char		broadcast[ADDR_MAXLEN + 1];
	char		tasks_dir[PATH_MAX];
	char		state_dir[PATH_MAX];
	char		log_file[PATH_MAX];
	enum log_level	log_level;
	int		slots;
	/* What this host offers tasks: 0 cores or memory means the host's
	 * own (config_load fills them in); tags a comma list. */
	int		cores;
	int		memory_mb;
	char		tags[CAPS_TEXT_MAX + 1];
	enum vol_mode	mode;
	enum queue_order order;		/* <order>fcfs|lret|sret|fairshare</order> */
	enum placement_mode placement;	/* <placement>informed|blind|fit */
	int		replicate_tail;	/* <replicate_tail>: copies, 0 none */
	int		nbatch;		/* <batch> windows */
	struct vol_window batch[VOL_WINDOWS_MAX];

	/* Timing knobs, LAN-sized. */
	int		dequeue_window_ms;
	int		election_window_ms;
	int		progress_interval_ms;
	int		failure_timeout_ms;
	int		node_timeout_ms;
	int		quiet_heartbeat_ms;
	int		membership_timeout_s;
	int		retention_s;	/* finished tasks kept; 0 forever */
	int		idle_check_s;
	int		input_idle_s;
	int		cpu_idle_percent;
	int		suspend_input_s;
	int		resume_idle_s;
	int		vacate_after_s;
	enum vol_return	on_return;	/* <on_user_return> */
	int		throttle_percent;
	char		idle_command[IDLE_COMMAND_MAX + 1];	/* "" none */

	/* Security: the cluster keys (keys[0] seals), or insecure. */
	int		nkeys;
	char		keys[KEYRING_MAX][PATH_MAX];
	int		insecure;
	/* Nodes on other subnets this one passes broadcasts to (relay.h). */
	int		nrelays;
	char		relays[RELAYS_MAX][ADDR_MAXLEN + 1];
	int		max_peers;	/* senders remembered, at most */
	char		socket[PATH_MAX];	/* "": <state_dir>/volery.sock */
	char		operator_key[PATH_MAX];	/* "": no remote operators */
	char		admin_key[PATH_MAX];	/* "": a loopback pool's own */
	/* Whose command tasks run here: "all", "none", or a group. */
	char		commands[RUNAS_NAME_MAX + 1];
	int		max_clients;
	int		max_clients_per_user;	/* or per remote host */
	int		client_idle_s;		/* 0: never dropped */
	int		max_output_mb;		/* a run's stream kept; 0 all */
	int		max_run_procs;		/* a run's processes; 0 any */
	int		run_memory_mb;		/* without --mem; 0 any */
	int		max_scratch_mb;		/* a run dir's size; 0 any */
	int		peer_evict_s;	/* a dead non-member forgotten */
	int		max_clock_skew_s;	/* peers' stamps, at most this
					 * far from our clock (0: any) */
	char		run_as[RUNAS_NAME_MAX + 1];	/* "": the default */
	int		min_uid;	/* owners below run as slot users */
	int		max_running_per_user;	/* in the pool; 0 any */
	char		max_running_of[CAPS_TEXT_MAX + 1];	/* user:N,... */
	int		fairshare_halflife_s;	/* usage halves so */
	/* The group whose members may touch every task (root and remote
	 * operators always may); "": none. */
	char		admins[RUNAS_NAME_MAX + 1];
	int		cancel_grace_ms;
	int		max_attempts;
	int		retry_delay_s;	/* doubling after each failure */
	int		quarantine_after;	/* tasks failed here, ran
						 * elsewhere; 0: never */
	int		quarantine_window_s;
	int		quarantine_s;
	int		checkpoint_copies;	/* of a run's newest */
	int		max_checkpoint_mb;
	/* Input files kept for later runs (inputs.h), least recently
	 * used first out; the most a task's inputs may weigh. */
	int		cache_mb;
	int		max_transfer_mb;
	/* CRIU for --checkpoint=auto: a path, "" for criu on PATH, "off" */
	char		criu[PATH_MAX];
	int		ageing_s;
	int		wake_after_s;	/* 0: never wake sleeping nodes */
	/* A dedicated or batch node with nothing to do this long goes to
	 * sleep with sleep_command (0: never). */
	int		sleep_when_idle_min;
	char		sleep_command[IDLE_COMMAND_MAX + 1];
};

void	config_default(struct config *);
/* Load path over the defaults; on error, every problem is in err. */
int	config_load(struct config *, const char *path, char *err,
	    size_t errlen);

#endif
