/*
 * outbox.h -- the actions a core event asks the shell to carry out, in
 * order.  The core never does I/O; it appends here.
 */
#ifndef VOLERY_OUTBOX_H
#define VOLERY_OUTBOX_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

enum log_level {
	VLOG_DEBUG,
	VLOG_INFO,
	VLOG_NORMAL,
	VLOG_WARNING,
	VLOG_ERROR,
};
#define VLOG_NLEVELS 5

enum action_type {
	ACT_LOG,	/* level, text */
	ACT_JOURNAL,	/* uuid: make the task's current record durable */
	ACT_NOTIFY,	/* uuid, text: a PROGRESS line for subscribers */
	ACT_START,	/* uuid: start the task's executable here */
	ACT_STOP,	/* uuid: stop our process running it */
	ACT_SUSPEND,	/* uuid: SIGSTOP our process group running it */
	ACT_RESUME,	/* uuid: SIGCONT it */
	ACT_TIMER,	/* when: call node_tick() at this time (-1: none) */
	ACT_BROADCAST,	/* text: a datagram body to every peer */
	ACT_UNICAST,	/* peer, text: a datagram body to one peer */
	ACT_MEMBERS,	/* text: the members, one name a line, to keep for
			 * node_restore_member() after a restart */
	ACT_RETIRE,	/* uuid, text: the task left the map; its last
			 * record, for the history file */
	ACT_FORGET,	/* uuid: a stale copy left the map; the journal must
			 * forget it now (rewrite), or a restart revives it */
	ACT_CHECK,	/* uuid: can this host run that command task (its
			 * program, its directory)?  Answer with
			 * node_command_checked() */
	ACT_THROTTLE,	/* uuid: slow our run of it (<on_user_return>) */
	ACT_UNTHROTTLE,	/* uuid: full speed again */
	ACT_QUARANTINE,	/* text: "<until_ms> <why>" while this node is
			 * quarantined (retry.h), "" once it is not: to
			 * keep for node_quarantine_restore() */
	ACT_CKPT_FETCH,	/* uuid, peer, text: fetch that checkpoint (task.h's
			 * text) of the task from peer, its runner, into
			 * our store; answer node_checkpoint_kept() */
	ACT_WAKE,	/* text: "<node> <mac>@<broadcast>[,always]": send
			 * that sleeping node the magic packet (wake.h) */
	ACT_SLEEP,	/* nothing for this node: put the host to sleep,
			 * saying so first (node_sleep; wake.h) */
	ACT_STAY,	/* text: "<start_ms> <s>..." our volunteer period's
			 * start (-1: none) and the ended ones (s), to keep
			 * for node_stay_restore() */
};

struct action {
	enum action_type type;
	char		 uuid[UUID_STRLEN + 1];
	char		 peer[NAME_MAXLEN + 1];
	enum log_level	 level;
	char		*text;
	int64_t		 when;
	int		 durable;	/* send once the journal is on disk */
};

struct outbox {
	struct action	*v;
	size_t		 n;
	size_t		 cap;
	enum log_level	 log_min;	/* outbox_log drops lines below it */
};

void	outbox_init(struct outbox *);
void	outbox_clear(struct outbox *);
void	outbox_free(struct outbox *);
void	outbox_task(struct outbox *, enum action_type, const char *);
void	outbox_text(struct outbox *, enum action_type, const char *,
	    const char *);
void	outbox_timer(struct outbox *, int64_t);
struct peer_msg;
void	outbox_peer(struct outbox *, const char *peer,
	    const struct peer_msg *);
/* The same, sent only once the journal writes before it are durable (a
 * vote, a confirmed end: a restart must not forget what they say). */
void	outbox_peer_durable(struct outbox *, const char *peer,
	    const struct peer_msg *);
void	outbox_log(struct outbox *, enum log_level, const char *, ...)
	    __attribute__((format(printf, 3, 4)));

const char *log_level_name(enum log_level);
int	 log_level_parse(const char *, enum log_level *);

#endif
