/*
 * actions.h -- carry out what the core asked for (its outbox), in
 * order: log, journal, send to peers (a vote or confirmation only once
 * the journal holds what it promises), start, stop and suspend runs,
 * notify listeners (notify.h), arm the core's one timer.  The timer and
 * the journal's commit are this file's events.
 */
#ifndef VOLERY_ACTIONS_H
#define VOLERY_ACTIONS_H

struct event_base;
struct node;
struct taskdesc_set;

struct actions_env {
	struct event_base		*base;
	struct node			*core;
	const char			*state_dir;	/* the members file */
	const char			*tasks_dir;	/* absolute */
	const struct taskdesc_set	*descs;		/* what SCHEDULE runs */
	const char			*commands;	/* <commands> */
};

/* env must outlive the node; its core may be set after this call. */
int	actions_init(const struct actions_env *);
/* After every event given to the core. */
void	actions_carry_out(void);
/* A run waiting for its --secret-env values gets them (secrets_cb). */
void	actions_secrets_ready(const char *uuid, char *const *kv,
	    const char *why);
/* A run waiting for its checkpoint (ckpts_ready_cb) or its input files
 * (infiles_ready_cb) may start, or one CRIU could not restore starts
 * again (runner_hooks' restart). */
void	actions_start_again(const char *uuid);
/* A run's input files cannot be had (infiles_failed_cb): it fails. */
void	actions_inputs_failed(const char *uuid, const char *why, int final);
void	actions_shutdown(void);

#endif
