/*
 * service.c -- what clients and the web ask of the node (service.h):
 * checked here against this host (programs, patterns), then given to
 * the core, whose actions are carried out at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <uuid/uuid.h>

#include "actions.h"
#include "clock.h"
#include "cmdrun.h"
#include "config.h"
#include "contain.h"
#include "descs.h"
#include "history.h"
#include "identity.h"
#include "journal.h"
#include "log.h"
#include "logsearch.h"
#include "node.h"
#include "owner.h"
#include "runas.h"
#include "runner.h"
#include "secrets.h"
#include "service.h"
#include "task.h"
#include "taskdesc.h"
#include "wire.h"

static const struct service_env	*env;

void
service_init(const struct service_env *e)
{
	env = e;
}

int
service_load_descs(void)
{
	struct taskdesc	*d;
	char		 path[PATH_MAX + NAME_MAXLEN + 2], real[PATH_MAX];
	char		 why[sizeof d->cannot_run];
	size_t		 i;

	if (descs_load(env->cfg->tasks_dir, env->descs) == -1)
		return -1;
	/* Such tasks are never proposed for here (run_admissible), so no
	 * attempt is burnt on them. */
	for (i = 0; i < env->descs->n; i++) {
		d = &env->descs->v[i];
		snprintf(path, sizeof path, "%s/%s", env->cfg->tasks_dir,
		    d->name);
		if (realpath(path, real) == NULL || access(real, X_OK) == -1)
			snprintf(why, sizeof why, "no program %s in "
			    "tasks_dir: %s", d->name, strerror(errno));
		else if (runas_can_access(env->user, real, X_OK, why,
		    sizeof why) == 0)
			why[0] = '\0';
		if (why[0] != '\0')
			log_msg(VLOG_WARNING, "task %s cannot run on this "
			    "node: %s", d->name, why);
		snprintf(d->cannot_run, sizeof d->cannot_run, "%s", why);
	}
	return 0;
}

const struct taskdesc_set *
service_descs(void)
{
	return env->descs;
}

/* Is there a program for exec in the tasks directory? */
static int
executable_exists(const char *exec)
{
	char	path[PATH_MAX + NAME_MAXLEN + 2];

	snprintf(path, sizeof path, "%s/%s", env->cfg->tasks_dir, exec);
	return access(path, X_OK) == 0;
}

/* req, its --secret-env words kv (n) kept before any node may start
 * it (secrets.h). */
static int
schedule_task(const struct node_schedule_req *req, char *const *kv, int n,
    char *uuid, char *err, size_t errlen)
{
	uuid_t	raw;
	int	rc;

	if (req->cmd != NULL &&
	    cmdrun_check_patterns(req->cmd, err, errlen) == -1)
		return -1;
	if (req->cmd == NULL && (!task_name_valid(req->exec) ||
	    !executable_exists(req->exec))) {
		snprintf(err, errlen, "unknown executable '%.64s': no such "
		    "program in the tasks directory", req->exec);
		return -1;
	}
	/* A description added since start-up is picked up here. */
	if (req->cmd == NULL && taskdesc_find(env->descs, req->exec) == NULL)
		service_load_descs();
	if (n > 0 && !identity_on()) {
		snprintf(err, errlen, "--secret-env needs node identities (an "
		    "<admin_key>, or a pool on one host): the values are "
		    "sealed to the key of the node that runs the task");
		return -1;
	}
	uuid_generate_random(raw);
	uuid_unparse_lower(raw, uuid);
	if (n > 0 && secrets_keep(uuid, kv, n, err, errlen) == -1)
		return -1;
	rc = node_schedule(env->core, req, uuid, clock_node_ms(), err,
	    errlen);
	if (rc == -1 && n > 0)
		secrets_forget(uuid);
	actions_carry_out();
	return rc;
}

int
service_schedule_task(const struct node_schedule_req *req, char *uuid,
    char *err, size_t errlen)
{
	return schedule_task(req, NULL, 0, uuid, err, errlen);
}

int
service_schedule(const struct client_req *req, const char *client,
    const char *user, int64_t uid, char *uuid, char *err, size_t errlen)
{
	struct node_schedule_req	sr;

	memset(&sr, 0, sizeof sr);
	sr.cmd = req->cmd == CMD_RUN ? &req->run : NULL;
	sr.array = req->array;
	sr.array_index = req->array_index;
	sr.array_max = req->array_max;
	sr.cores = req->cores;
	sr.memory_mb = req->memory_mb;
	sr.tags = req->tags;
	sr.begin_ms = req->begin_ms;
	sr.deadline_ms = req->deadline_ms;
	sr.deadline_strict = req->deadline_strict;
	sr.verify = req->verify;
	sr.est_ms = req->est_ms;
	sr.exec = req->exec;
	sr.prio = req->prio;
	sr.path = req->path;
	sr.params = req->params;
	sr.nbind = req->nbind;
	sr.bind = req->bind;
	sr.client = client;
	sr.user = user;
	sr.has_uid = uid >= 0;
	sr.uid = uid;
	return schedule_task(&sr, req->secret_kv, sr.cmd != NULL ?
	    sr.cmd->nsecrets : 0, uuid, err, errlen);
}

int
service_is_admin(const char *user)
{
	if (strcmp(user, "root") == 0 || strcmp(user, "operator") == 0)
		return 1;
	return owner_in_group(user, env->cfg->admins);
}

int
service_may_touch(const char *user, const char *uuid, char *err,
    size_t errlen)
{
	const struct task	*t = node_find(env->core, uuid);
	struct task		**hist = NULL;
	size_t			  n = 0;
	int			  ok = 1;

	if (service_is_admin(user))
		return 0;
	if (t == NULL && (hist = history_read(&n)) != NULL)
		t = history_find(hist, n, uuid);
	/* An unknown task is the request's own error to tell. */
	if (t != NULL && strcmp(t->user, user) != 0) {
		snprintf(err, errlen, "not yours: task %s belongs to %s", uuid,
		    t->user[0] != '\0' ? t->user : "an unknown user");
		ok = 0;
	}
	history_free(hist, n);
	return ok ? 0 : -1;
}

struct log_view {
	char		  user[USER_MAXLEN + 1];
	int		  all;		/* an admin's view */
	int		  hist_read;
	struct task	**hist;
	size_t		  nhist;
};

struct log_view *
service_log_view(const char *user)
{
	struct log_view	*v = calloc(1, sizeof *v);

	if (v == NULL)
		return NULL;
	snprintf(v->user, sizeof v->user, "%s", user);
	v->all = service_is_admin(user);
	return v;
}

int
service_log_visible(struct log_view *v, const char *line, size_t len)
{
	char			 uuid[UUID_STRLEN + 1];
	const char		*p = memmem(line, len, "UUID{", 5);
	const struct task	*t;

	if (v == NULL || v->all || p == NULL ||
	    (size_t)(line + len - p) < 5 + UUID_STRLEN)
		return v == NULL ? 0 : 1;	/* no memory: show nothing */
	memcpy(uuid, p + 5, UUID_STRLEN);
	uuid[UUID_STRLEN] = '\0';
	if ((t = node_find(env->core, uuid)) == NULL) {
		if (!v->hist_read) {
			v->hist = history_read(&v->nhist);
			v->hist_read = 1;
		}
		t = history_find(v->hist, v->nhist, uuid);
	}
	return t == NULL || strcmp(t->user, v->user) == 0;
}

void
service_log_view_free(struct log_view *v)
{
	if (v == NULL)
		return;
	history_free(v->hist, v->nhist);
	free(v);
}

int64_t
service_forecast(const char *uuid)
{
	const struct task	*t = node_find(env->core, uuid);

	return t != NULL ? node_task_forecast(env->core, t, clock_node_ms()) :
	    -1;
}

int
service_certify(const char *uuid)
{
	int	final = node_certify(env->core, uuid, clock_node_ms());

	actions_carry_out();	/* or the carrying one goes on with them */
	return final;
}

int
service_cancel(const char *uuid, void (*await)(void *), void *arg,
    char *err, size_t errlen)
{
	if (node_cancel(env->core, uuid, clock_node_ms(), err, errlen) == -1)
		return -1;
	if (await != NULL)
		await(arg);
	actions_carry_out();
	return 0;
}

/* Is pid a descendant of this node (its parent's parent... is us)?  A
 * run's process, even one that left its group without a cgroup to keep
 * it: the node is the subreaper of its runs. */
static int
descends_from_us(pid_t pid)
{
	char	path[64], buf[512], *p;
	int	depth, fd;
	ssize_t	len;
	long	ppid;

	for (depth = 0; depth < 64 && pid > 1; depth++) {
		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			return 0;
		len = read(fd, buf, sizeof buf - 1);
		close(fd);
		/* "pid (comm) state ppid": comm may hold anything. */
		if (len <= 0 || (buf[len] = '\0', p = strrchr(buf, ')')) ==
		    NULL || sscanf(p + 1, " %*c %ld", &ppid) != 1)
			return 0;
		if ((pid_t)ppid == getpid())
			return 1;
		pid = (pid_t)ppid;
	}
	return 0;
}

int
service_pid_in_run(int pid)
{
	pid_t	groups[RUNS_SEEN_MAX], pgid = getpgid(pid);
	int	n, i;

	n = runner_groups(groups, RUNS_SEEN_MAX);
	for (i = 0; i < n; i++)
		if (groups[i] == pgid)
			return 1;
	return contain_pid_in_run(pid) || descends_from_us(pid);
}

int
service_hold(const char *uuid, int hold, char *err, size_t errlen)
{
	int	rc = node_hold(env->core, uuid, hold, clock_node_ms(), err,
		    errlen);

	actions_carry_out();
	return rc;
}

int
service_prio(const char *uuid, enum task_prio prio, char *err,
    size_t errlen)
{
	int	rc = node_prio(env->core, uuid, prio, clock_node_ms(), err,
		    errlen);

	actions_carry_out();
	return rc;
}

void
service_when_durable(void (*fn)(void *, int), void *arg)
{
	journal_after_commit(fn, arg);
}

/*
 * The log is read from its last LOG_SCAN_MAX bytes at most (older lines
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

struct logjob *
service_log_search(struct log_query *q, const char *since, const char *until,
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
	if ((j = logjob_start(env->base, s, f, nlines, out, arg)) == NULL)
		snprintf(err, errlen, "cannot search the log: %s",
		    strerror(errno));
	return j;
}
