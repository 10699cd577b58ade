/*
 * reply.h -- the node's multi-field reply lines (volery-protocol(7)),
 * one codec for both sides: the node formats them, the command line
 * parses them.  A parse fails (-1) on a line that is not of its kind or
 * is damaged; every parsed line formats back to the same text.
 *
 *   TASK uuid exec prio state percent scheduled_by running_on|- est|- eta|-
 *        [submitted=MS] [user=NAME] [array=UUID:N] [why it waits, to the end]
 *   NODE name address master|peer state free/slots reputation
 *        [cores=N memory=MB tags=LIST|-]
 *   REJECTED count last_source why...
 *   CLASH address
 *   RECORD task-record
 */
#ifndef VOLERY_REPLY_H
#define VOLERY_REPLY_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

struct task;

#define REPLY_WORD_MAX	32	/* prio, state, role */

/* A TASK line of TASKS and HISTORY. */
struct reply_task {
	char	 uuid[UUID_STRLEN + 1];
	char	 exec[NAME_MAXLEN + 1];
	char	 prio[REPLY_WORD_MAX + 1];
	char	 state[REPLY_WORD_MAX + 1];	/* as shown: Suspended too */
	int	 progress;			/* 0 to 100 */
	char	 scheduled_by[NAME_MAXLEN + 1];
	char	 running_on[NAME_MAXLEN + 1];	/* "" none */
	int64_t	 est_ms;	/* the run's expected length, -1 unknown */
	int64_t	 eta_ms;	/* its expected end from now, -1 unknown */
	int64_t	 submit_ms;	/* -1: not said */
	char	 user[USER_MAXLEN + 1];		/* its owner, "" not said */
	char	 array[UUID_STRLEN + 1];	/* "" none */
	int	 array_index;
	char	 why[REASON_MAXLEN + 1];	/* why it waits, "" */
	/* Its newest checkpoint (ckpt.h): seq (0 none), its age when the
	 * line was made, and the nodes that keep it, a comma list. */
	int64_t	 ckpt_seq;
	int64_t	 ckpt_age_ms;
	char	 ckpt_at[CKPT_HOLDERS_MAX * (NAME_MAXLEN + 1)];
	int64_t	 deadline_ms;	/* to end by (epoch ms), 0 none */
};

/* A NODE line of NODES. */
struct reply_node {
	char	 name[NAME_MAXLEN + 1];
	char	 address[ADDR_MAXLEN + 1];
	char	 role[REPLY_WORD_MAX + 1];	/* master or peer */
	char	 state[REPLY_WORD_MAX + 1];	/* volunteer state, or dead */
	int	 free, slots, reputation;
	int	 cores;				/* 0: it did not say */
	int64_t	 memory_mb;
	char	 tags[CAPS_TEXT_MAX + 1];	/* "" none */
	char	 contain[NAME_MAXLEN + 1];	/* "" unsaid */
	int64_t	 window_from_ms, window_to_ms;	/* its batch window ahead
						 * (node clock); 0 to: none */
};

/* A REJECTED line of NODES: datagrams dropped for why. */
struct reply_rejected {
	uint64_t count;
	char	 last_from[ADDR_MAXLEN + 1];
	char	 why[REASON_MAXLEN + 1];
};

/* Each formats one line with its newline into buf: its length, or -1
 * if it does not fit (or a field cannot be sent as one word). */
int	wire_reply_task_format(const struct reply_task *, char *, size_t);
int	wire_reply_task_parse(const char *line, struct reply_task *);
int	wire_reply_node_format(const struct reply_node *, char *, size_t);
int	wire_reply_node_parse(const char *line, struct reply_node *);
int	wire_reply_rejected_format(const struct reply_rejected *, char *,
	    size_t);
int	wire_reply_rejected_parse(const char *line, struct reply_rejected *);
int	wire_reply_clash_format(const char *address, char *, size_t);
int	wire_reply_clash_parse(const char *line, char *address, size_t);
/* QUARANTINED until_ms why...: this node takes no tasks (retry.h). */
int	wire_reply_quarantined_format(int64_t until_ms, const char *why,
	    char *, size_t);
int	wire_reply_quarantined_parse(const char *line, int64_t *until_ms,
	    char *why, size_t);
/* A node's answer to a request for bytes (CKPT <uuid> <seq>, FILE
 * <uuid> <n>): the request line again, the size, and " z=<n>" if n bytes
 * of a deflate stream of them follow (zbytes -1: the bytes as they are).
 * The parse is of the answer to req: 0, or -1 if it is anything else. */
int	wire_reply_blob_format(const char *req, int64_t bytes, int64_t zbytes,
	    char *, size_t);
int	wire_reply_blob_parse(const char *line, const char *req,
	    int64_t *bytes, int64_t *zbytes);
/* RECORD: a task as the history keeps it (wire_task_encode); private:
 * without its command's environment (for someone not its owner). */
int	wire_reply_record_format(const struct task *, int private, char *,
	    size_t);
struct task *wire_reply_record_parse(const char *line, char *err,
	    size_t errlen);

#endif
