/*
 * journal.h -- the node's durable task records in <state_dir>/journal.
 *
 * Records are appended to memory by journal_append() and made durable
 * together by journal_commit() (write + fdatasync), which then runs the
 * callbacks waiting for durability: a reply is sent only after its task
 * is on disk.  Records nothing waits on may be written without the
 * fdatasync (journal_write_unsynced): a crash of the node keeps them,
 * and the next commit syncs them.  No libevent here; the server decides
 * when to commit.
 */
#ifndef VOLERY_JOURNAL_H
#define VOLERY_JOURNAL_H

#include <stddef.h>

struct task;

typedef void journal_done_cb(void *, int ok);
typedef int journal_load_cb(struct task *, void *);

int	journal_open(const char *state_dir, char *err, size_t errlen);
void	journal_close(void);
/* Feed every intact record to cb; a bad tail is logged and set aside. */
int	journal_load(journal_load_cb *, void *);
/* Replace the journal by exactly these tasks (compaction). */
int	journal_rewrite(struct task *const *, size_t);
void	journal_append(const struct task *);
void	journal_after_commit(journal_done_cb *, void *);
/* Records not yet written, or someone waits for durability. */
int	journal_pending(void);
/* Every record appended is on disk. */
int	journal_durable(void);
/* Someone waits (journal_after_commit): commit now. */
int	journal_waited_on(void);
int	journal_commit(void);
/* Write what was appended, not durable until the next commit. */
int	journal_write_unsynced(void);
size_t	journal_records(void);
/* The journal's file primitives, which the history shares: append to a
 * growing buffer; write all of it (-1, errno set). */
int	journal_buf_add(char **, size_t *len, size_t *cap, const char *,
	    size_t);
int	journal_write_all(int fd, const char *, size_t);
/* A whole file in memory (the journal, the history); NULL, errno set. */
char	*journal_read_file(const char *path, size_t *len);	/* appended since the last rewrite */
int	journal_lost(void);	/* a commit failed: rewrite everything */

#endif
