/*
 * criu.h -- transparent checkpoints (--checkpoint=auto) with CRIU.
 *
 * At a vacate the node dumps the run's stopped process tree with `criu
 * dump`, packs the images into the run's checkpoint file "auto"
 * (criuimg.h), and the pool keeps it as any checkpoint; the next run
 * restores the tree with `criu restore` as the sibling of CRIU, so that
 * it is the node's child again, and continues it.  CRIU runs as the
 * run's user with only the capabilities it needs (CAP_CHECKPOINT_RESTORE,
 * and CAP_SYS_PTRACE to dump): an image from a peer can never restore a
 * process with more rights than its owner has.  The images are made
 * and read in <state_dir>/criu/<uuid>, a directory of the node's.
 */
#ifndef VOLERY_CRIU_H
#define VOLERY_CRIU_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct job_spec;
struct runas;
struct strings;
struct criu_dump;

/*
 * Can CRIU run here?  configured is <criu>: a path, "" for `criu` on
 * PATH, or "off".  Runs `criu check` once; 1 if it can, else 0 and the
 * reason, which the node logs.  A pack over max_bytes (a checkpoint's
 * bound) is never unpacked.
 */
int	criu_init(const char *configured, const char *state_dir,
	    int64_t max_bytes, char *why, size_t whylen);
int	criu_ready(void);
/* Why it cannot, as criu_init said ("" if it can). */
const char *criu_why(void);

/*
 * Dump the stopped tree of pid (the run of uuid, as ra, its stdout and
 * stderr the node's pipes out and err) into rundir/auto; CRIU ends the
 * tree.  done(arg, ok, why) once over, not before this returns.  NULL
 * with why if it cannot start.
 */
struct criu_dump *criu_dump(const char *uuid, pid_t pid, int out, int err,
	    const struct runas *ra, const char *rundir,
	    void (*done)(void *, int ok, const char *why), void *arg,
	    char *why, size_t whylen);
/* The node lets go: done is never called. */
void	criu_dump_cancel(struct criu_dump *);

/*
 * The restore of uuid's dump in rundir/auto: spec runs CRIU instead of
 * the program (its argv and env filled, their strings kept in k, with
 * the one capability a restore needs); the pid the tree's root will
 * have.  -1 with why, spec untouched (the run starts from the
 * beginning).
 */
int	criu_restore_spec(const char *uuid, const char *rundir,
	    const struct runas *ra, struct strings *k, struct job_spec *spec,
	    const char **argv, char **env, pid_t *pid, char *why,
	    size_t whylen);
/* The restore of uuid is over: why it failed (CRIU's last error) into
 * why if failed; its images removed. */
void	criu_restore_over(const char *uuid, int failed, char *why,
	    size_t whylen);

#endif
