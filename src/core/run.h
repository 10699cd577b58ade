/*
 * run.h -- this node's own runs: start, results, exits and retries,
 * volunteering (suspend, resume, vacate), and restore and recovery
 * after a restart.
 */
#ifndef VOLERY_RUN_H
#define VOLERY_RUN_H

#include <stdint.h>

struct node;
struct task;

struct runs {
	int		 running;	/* slots in use */
	int		 cores;		/* what our runs take (task_cores) */
	int64_t		 memory_mb;	/* and their memory */
	int		 volunteer;	/* may take tasks now */
	const char	*volunteer_state;	/* for heartbeats */
};

void	run_init(struct node *);
/*
 * Whether t may run here: its executable has a description in our
 * tasks_dir, and the record binds what the description asks for (its
 * inputs, -p if it needs one); a command, if this host has its program
 * and directory (cmdcheck.c).  A record that does not -- forged, or
 * for a program this host lacks -- is never started here; why says so.
 */
int	run_admissible(struct node *, const struct task *, char *why,
	    size_t whylen);
/* If t is not final and may not run here, log why once, as the node
 * learns of it (from: the peer it came from, or NULL: scheduled here). */
void	run_warn_not_here(struct node *, const struct task *,
	    const char *from);
/* Whether t fits now beside our runs: cores and memory left. */
int	run_fits_now(const struct node *, const struct task *);
/* Start t here. */
void	run_start(struct node *, struct task *, int64_t now);
/* Stop our process running t, if any. */
void	run_stop(struct node *, struct task *);
/* A clean stop: every run of ours goes back to Ready. */
void	run_stop_all(struct node *, int64_t now);
int	run_count(const struct node *);
int	run_volunteering(const struct node *);
const char *run_volunteer_state(const struct node *);

#endif
