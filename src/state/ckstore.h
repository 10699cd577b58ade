/*
 * ckstore.h -- the checkpoints this node keeps, <state_dir>/checkpoints/
 * <uuid>.<seq> (0600): its own runs' newest, taken from the run dir as
 * the run says it wrote one, and copies of other runs' (ckfetch.h).
 * Every byte is hashed (BLAKE2b-256) on its way in and on its way out:
 * a copy that does not match the hash its maker signed is never given
 * to a run.
 */
#ifndef VOLERY_CKSTORE_H
#define VOLERY_CKSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "bounds.h"

struct runas;
struct task_ckpt;

int	ckstore_open(const char *state_dir, char *err, size_t errlen);
/* The run of uuid wrote file (a plain name) into its run dir, dir: keep
 * a copy (a regular file of the run's user, whose the dir is, at most
 * max bytes), its size and hash into *bytes and hash, and the size of
 * its compressed form, kept to be sent if 9/10 of it or less (-1: not
 * kept).  -1 and why. */
int	ckstore_take(const char *uuid, const char *dir, const char *file,
	    int64_t max, int64_t *bytes, int64_t *zbytes,
	    char hash[DIGEST_HEX + 1], char *err, size_t errlen);
/* The copy ckstore_take made is seq of uuid's (0: not kept after all);
 * older ones go. */
void	ckstore_name(const char *uuid, int64_t seq);
/* Is seq of uuid's checkpoint here (unchecked)? */
int	ckstore_has(const char *uuid, int64_t seq);
/* Is c's copy here, and does it hash as c says?  One that does not is
 * dropped. */
int	ckstore_check(const char *uuid, const struct task_ckpt *c);
/* Its stored file, opened to be sent: its size, and its compressed
 * form's if that is what the descriptor reads (else -1); -1 if not
 * here. */
int	ckstore_open_copy(const char *uuid, int64_t seq, int64_t *bytes,
	    int64_t *zbytes);
/* A file to write a fetched copy into (ckstore_commit or _abort). */
int	ckstore_begin(const char *uuid, int64_t seq);
/* The fetched copy is whole: 0 if it matches c's size and hash (kept,
 * older ones of the task dropped), -1 and why if not (removed). */
int	ckstore_commit(int fd, const char *uuid, const struct task_ckpt *c,
	    char *why, size_t whylen);
void	ckstore_abort(int fd, const char *uuid, int64_t seq);
/* Put c's checkpoint of uuid into the run dir dir as c->file, the run
 * user's, if the store's copy matches its hash: 0, or -1 and why. */
int	ckstore_restore(const char *uuid, const struct task_ckpt *c,
	    const char *dir, const struct runas *, char *why, size_t whylen);
/* uuid ended: every checkpoint of it goes. */
void	ckstore_drop(const char *uuid);
/* After a restart: what a copy or a take left half done goes, and every
 * checkpoint of a task keep() says is over (it ended while we were
 * away). */
void	ckstore_sweep(int (*keep)(const char *uuid));

#endif
