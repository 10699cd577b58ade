/*
 * service.h -- what clients and the web ask of the node, one function
 * each: a SCHEDULE line and an HTTP POST schedule through the same
 * service_schedule() and are made durable the same way (the answer
 * after the journal's commit, service_when_durable()).  The request
 * handlers (src/clients) and the web (src/web) reach the node here.
 */
#ifndef VOLERY_SERVICE_H
#define VOLERY_SERVICE_H

#include <stddef.h>
#include <stdint.h>

#include "logjob.h"
#include "task.h"

struct client_req;
struct config;
struct event_base;
struct log_query;
struct node;
struct node_schedule_req;
struct runas;
struct taskdesc_set;

struct service_env {
	struct event_base	*base;
	struct node		*core;		/* set once made */
	const struct config	*cfg;
	const struct runas	*user;		/* whom runs run as */
	struct taskdesc_set	*descs;		/* the node's descriptions */
};

/* env must outlive the node. */
void	service_init(const struct service_env *);

/* (Re)load the task descriptions, and mark those this host cannot run
 * (no program, or one the run user cannot reach). */
int	service_load_descs(void);
const struct taskdesc_set *service_descs(void);

/* Schedule req (its client and user said) after checking it against
 * this host (a command's patterns, a described task's program): its
 * new uuid, or -1 with why.  The one way in, for a SCHEDULE or RUN line
 * (service_schedule) and the web's tasks alike. */
int	service_schedule_task(const struct node_schedule_req *, char *uuid,
	    char *err, size_t errlen);
/* req (SCHEDULE or RUN) as asked by client (an address) and user (NULL:
 * unknown), whose uid is uid (-1: unknown). */
int	service_schedule(const struct client_req *, const char *client,
	    const char *user, int64_t uid, char *uuid, char *err,
	    size_t errlen);
/* When uuid, just scheduled with a deadline, should end (epoch ms), the
 * queue ahead played on the pool's slots (node_task_forecast); -1:
 * nothing to tell it from. */
int64_t	service_forecast(const char *uuid);
/* Cancel uuid: 0 once the core proposed it, then first await(arg) (if
 * not NULL: who waits for its end registers before the end can come),
 * then its effects; -1 with why. */
int	service_cancel(const char *uuid, void (*await)(void *), void *arg,
	    char *err, size_t errlen);
/* Before a client is told uuid's end as final: 1 if it is, 0 if its
 * certificate did not hold (node_certify); what follows is carried out. */
int	service_certify(const char *uuid);
/*
 * What of the log a user may read: every line but those naming another
 * user's task (its command, its output's name, its reason), unless the
 * user may touch every task (an admin, root, the operator).  A view
 * reads the history once, the first time a line names a task no longer
 * in the map.
 */
struct log_view;
struct log_view *service_log_view(const char *user);
int	service_log_visible(struct log_view *, const char *line, size_t len);
void	service_log_view_free(struct log_view *);
/* Is pid a process of one of this node's runs: in a run's process
 * group, its cgroup (which a setsid does not leave), or below the node
 * (its runs' subreaper)?  Such a one may read, never change the node's
 * volunteering or a task. */
#define RUNS_SEEN_MAX	256
int	service_pid_in_run(int pid);
/* Hold (hold 1) or release a waiting task, or change its priority:
 * 0, or -1 with why (not waiting, unknown). */
int	service_hold(const char *uuid, int hold, char *err, size_t errlen);
int	service_prio(const char *uuid, enum task_prio, char *err,
	    size_t errlen);
/* Who may touch a task (cancel it, read its output, environment and
 * log lines): its owner, root, remote operators and the <admins>
 * group.  service_may_touch() is 0 if user may touch uuid (or no such
 * task is known), else -1 with "not yours: ..." in err. */
int	service_is_admin(const char *user);
int	service_may_touch(const char *user, const char *uuid, char *err,
	    size_t errlen);
/* fn(arg, ok) once what was asked so far is in the journal on disk
 * (ok 0: it could not be written). */
void	service_when_durable(void (*fn)(void *, int), void *arg);

/* Search the recent log for q, since and until as people write times
 * (NULL: no bound), its last nlines (0: all), in a thread: LOG and GET
 * /api/log.  The job, or NULL with why and *status (400 a bad time or
 * expression, 503 too many searches, 500 the node's own trouble). */
struct logjob *service_log_search(struct log_query *q, const char *since,
	    const char *until, int nlines, logjob_fn *out, void *arg,
	    int *status, char *err, size_t errlen);

#endif
