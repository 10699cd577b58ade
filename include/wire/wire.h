/*
 * wire.h -- pure codecs: client request lines, runner lines, task
 * records and journal framing.  Each parser takes untrusted bytes with
 * their length, never reads past them, and says what is wrong in err.
 */
#ifndef VOLERY_WIRE_H
#define VOLERY_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"
#include "outbox.h"
#include "task.h"
#include "volunteer.h"

enum client_cmd {
	CMD_SCHEDULE,
	CMD_SUBSCRIBE,
	CMD_CANCEL,
	CMD_TASKS,
	CMD_HISTORY,
	CMD_NODES,
	CMD_LOG,
	CMD_IDLE,
	CMD_HELP,
	CMD_QUIT,
	CMD_RUN,
	CMD_OUTPUT,
	CMD_ACCOUNT,
	CMD_API,
	CMD_HOLD,
	CMD_RELEASE,
	CMD_PRIO,
	CMD_PEERKEY,
	CMD_REVOKE,
	CMD_CLEAR,
	CMD_CKPT,
	CMD_SLEEP,
	CMD_FILE,
};


struct client_req {
	enum client_cmd		 cmd;
	/* SCHEDULE */
	const char		*exec;
	enum task_prio		 prio;
	const char		*path;
	const char		*params;
	int			 nbind;
	struct task_binding	 bind[TASK_INPUTS_MAX];
	/* SCHEDULE, RUN -c -m -g: what it needs of a node */
	int			 cores;
	int64_t			 memory_mb;
	const char		*tags;
	int64_t			 begin_ms;	/* -b: not before; 0 now */
	int64_t			 deadline_ms;	/* -D, -H: to end by; 0 none */
	int			 deadline_strict;	/* -H: refused if the
						 * forecast misses it */
	int			 verify;	/* -V: replicas; 0 none */
	int64_t			 est_ms;	/* -T: run time, estimated */
	/* SCHEDULE, RUN -A: its array ("" none), value and limit */
	char			 array[UUID_STRLEN + 1];
	int			 array_index;
	int			 array_max;
	/* SUBSCRIBE, CANCEL (uuid[0]), LOG -t (uuid[0]) */
	int			 nuuid;
	char			 uuid[SUBSCRIBE_MAX][UUID_STRLEN + 1];
	/* TASKS, HISTORY */
	int			 has_state;
	enum task_state		 state;
	int			 suspended_only;	/* TASKS Suspended */
	/* IDLE */
	enum vol_force		 idle;
	int			 sleep;		/* SLEEP now (1) or over (0) */
	/* LOG */
	const char		*regex;
	int			 has_level;
	enum log_level		 level;
	int			 nlines;
	const char		*since;		/* as written; the node */
	const char		*until;		/* reads it (logsearch.h) */
	/* RUN (exec: its name; prio, nbind, bind as SCHEDULE's): the
	 * command, its strings unescaped in buf */
	struct task_cmd		 run;
	char			*cmd_argv[CMD_ARGS_MAX];
	char			*cmd_env[CMD_ENV_MAX];
	char			*cmd_outs[TASK_OUTPUTS_MAX];
	/* RUN -i "<bytes>:<hash>:<path>" (--in): the files it reads. */
	char			*cmd_ins[CMD_INS_TEXT_MAX / 68];
	/* RUN -S NAME=value (--secret-env): the names go in run.secrets,
	 * the "NAME=value" words stay with the node that takes it. */
	char			*cmd_secrets[CMD_SECRETS_MAX];
	char			 secret_names[CMD_SECRETS_MAX][NAME_MAXLEN + 1];
	char			*secret_kv[CMD_SECRETS_MAX];
	/* ACCOUNT: finished tasks that ended at or after since and were
	 * submitted at or before until (ms since the epoch; -1 no bound),
	 * in one of the states (bit 1 << state; 0: any final), run on node,
	 * asked by user (NULL: any) */
	int64_t			 acct_since;
	int64_t			 acct_until;
	unsigned		 acct_states;
	const char		*acct_node;
	const char		*acct_user;
	/* FILE: the first byte wanted (a fetch that broke, resumed) */
	int64_t			 file_from;
	/* PEERKEY, CLEAR: a node's name; REVOKE: a revocation's words after its
	 * first (ident.h) */
	const char		*peer_name;
	const char		*revoke[4];
	/* API: a GET of the JSON API ("/api/tasks?state=Ready") */
	const char		*api_uri;
	/* OUTPUT (uuid[0]) */
	int			 out_stderr;
	int			 out_follow;
	int64_t			 out_offset;

	char			 buf[CLIENT_LINE_MAX + 1];  /* tokens */
};

int	wire_client_parse(const char *, size_t, struct client_req *, char *,
	    size_t);
/* The reply to HELP, from the protocol's command table; its length or
 * -1 if it does not fit. */
int	wire_client_help(char *, size_t);

enum runner_msg_type {
	RMSG_PROGRESS,
	RMSG_TERMINATED,
	RMSG_CANCELLED,
	RMSG_ERROR,
	RMSG_CHECKPOINT,	/* message: the file, in its run dir */
};

struct runner_msg {
	enum runner_msg_type	 type;
	int			 final;		/* ERROR: no other attempt (a
						 * command's time limit); never
						 * from a task's line */
	int			 percent;
	int			 noutputs;
	char			*outputs[TASK_OUTPUTS_MAX];
	const char		*message;
	/* A command's result: BLAKE2b-256 of its stdout and output files,
	 * hex ("" none): what --verify compares (verify.h). */
	char			 digest[DIGEST_HEX + 1];
	char			 buf[RUNNER_LINE_MAX + 1];
};

int	wire_runner_parse(const char *, size_t, struct runner_msg *, char *,
	    size_t);
/* A copy of m (malloc'd) that points into its own buffer; NULL out of
 * memory. */
struct runner_msg *wire_runner_dup(const struct runner_msg *m);

/* A task as one line of text (no newline); returns its length or -1. */
int	wire_task_encode(const struct task *, char *, size_t);
struct task *wire_task_decode(const char *, size_t, char *, size_t);
/* A copy of t through its record (every field a record carries, no
 * local one); NULL with why. */
struct task *wire_task_copy(const struct task *t, char *err, size_t errlen);
/* The longest the task's record can grow to as it runs, with noutputs
 * outputs. */
size_t	wire_task_worst_len(const struct task *, int noutputs);

/* The PROGRESS line for t, newline included; returns its length. */
int	wire_progress_line(const struct task *, char *, size_t);

/* A PROGRESS line as a subscriber reads it back. */
struct wire_progress {
	char	uuid[UUID_STRLEN + 1];
	int	percent;
	char	state[16];
	char	node[NAME_MAXLEN + 1];		/* "" if none */
	int	attempt;
	double	waited, makespan;		/* -1 if not given */
	double	eta;				/* s from then; -1 none */
	char	array[UUID_STRLEN + 1];		/* "" if none */
	int	array_index;
	/* Its newest checkpoint: seq (0 none), when its maker made it
	 * (its clock, ms) and the nodes that keep it, a comma list. */
	int64_t	ckpt_seq, ckpt_made_ms;
	char	ckpt_at[CKPT_HOLDERS_MAX * (NAME_MAXLEN + 1)];
	char	reason[REASON_MAXLEN + 1];
};
int	wire_progress_parse(const char *line, struct wire_progress *);
/* The same line with eta= (from now) added where it goes; -1 if it
 * would not fit (the line is left as it was). */
int	wire_progress_add_eta(char *line, size_t size, int64_t end_in_ms);

/* Journal framing: "<crc32 hex8> <payload>". */
int	wire_record_frame(const char *, size_t, char *, size_t);
int	wire_record_unframe(const char *, size_t, const char **, size_t *);
uint32_t wire_crc32(const void *, size_t);
/* A task's record, encoded and framed; its length or -1 if too long. */
int	wire_task_frame(const struct task *, char *, size_t);

/*
 * Reading a journal back: every line that checks and decodes goes to
 * record() (which returns -1 if it did not keep the task: freed then);
 * every damaged line to damaged(), and the scan goes on past it.  Only
 * an unfinished last line (a torn write) ends the journal.
 */
enum wire_damage { DAMAGE_TORN, DAMAGE_CHECKSUM, DAMAGE_UNDECODABLE };
struct wire_journal_scan {
	int	(*record)(struct task *, void *);
	void	(*damaged)(size_t lineno, enum wire_damage, const char *why,
		    size_t len, void *);
	void	*arg;
	size_t	 loaded, damages;
};
void	wire_journal_scan(const char *, size_t, struct wire_journal_scan *);

#endif
