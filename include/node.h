/*
 * node.h -- the scheduling state machine of one node: the task map, the
 * ready queue, bindings, runs, retries and cancellation.
 *
 * Every entry point takes the current time and appends what must happen
 * to n->out; none does I/O.  The libevent shell (src/io) and the tests
 * feed events in and carry the actions out.
 */
#ifndef VOLERY_NODE_H
#define VOLERY_NODE_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "outbox.h"
#include "readyq.h"
#include "taskmap.h"

struct task;
struct taskdesc_set;

struct node_config {
	char		name[NAME_MAXLEN + 1];
	int		slots;
	int		max_attempts;
	int64_t		ageing_ms;
};

struct node {
	struct node_config	   cfg;
	const struct taskdesc_set *descs;
	struct taskmap		   map;
	struct readyq		   ready;
	struct outbox		   out;
	int			   running;	/* slots in use */
	int			   volunteer;	/* may take tasks now */
	int64_t			   timer;	/* armed tick, or -1 */
	int64_t			   last_submit;	/* newest submit stamp */
};

/* A SCHEDULE request, already parsed and syntax-checked. */
struct node_binding {
	char	uuid[UUID_STRLEN + 1];
	int	nth;
};

struct node_schedule_req {
	const char		*exec;
	int			 prio;		/* enum task_prio */
	const char		*path;		/* or NULL */
	const char		*params;	/* or NULL */
	int			 nbind;
	const struct node_binding *bind;
	const char		*client;	/* requesting host */
};

/* How a task's process ended (from waitpid). */
struct node_exit {
	int	code;		/* exit status, or -1 */
	int	signo;		/* terminating signal, or 0 */
};

struct runner_msg;

void	node_init(struct node *, const struct node_config *,
	    const struct taskdesc_set *);
void	node_free(struct node *);
struct task *node_find(const struct node *, const char *);

/* Client requests.  On error, 0 changes and a reason in err. */
int	node_schedule(struct node *, const struct node_schedule_req *,
	    const char *uuid, int64_t now, char *err, size_t errlen);
int	node_cancel(struct node *, const char *uuid, int64_t now, char *err,
	    size_t errlen);

/* From our running processes. */
void	node_runner_msg(struct node *, const char *uuid,
	    const struct runner_msg *, int64_t now);
void	node_runner_exit(struct node *, const char *uuid,
	    const struct node_exit *, int64_t now);

void	node_set_volunteer(struct node *, int, int64_t now);
void	node_tick(struct node *, int64_t now);

/*
 * Start-up: node_restore() each task of the journal (a later record of
 * the same uuid replaces the earlier), then node_recover() once.
 */
int	node_restore(struct node *, struct task *);
void	node_recover(struct node *, int64_t now);

#endif
