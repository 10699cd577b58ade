/*
 * contain.h -- every run's whole process tree, so that nothing of a task
 * outlives its run or its node (issue 14):
 *
 *   - each run in a cgroup (v2) of its own, which the node makes under
 *     its own when it may (root, or a delegated cgroup: Delegate=yes in
 *     the systemd unit); its whole tree is killed at once (cgroup.kill),
 *     whatever it did to its process groups;
 *   - else its process group, and at a restart every process whose
 *     TMPDIR is one of this node's run directories;
 *   - a watchdog process, forked at start, that kills all of them the
 *     moment the node dies, kill -9 included (its pipe from the node
 *     closes), and then ends;
 *   - at start, what an earlier incarnation left running is killed
 *     before the node takes work.
 */
#ifndef VOLERY_CONTAIN_H
#define VOLERY_CONTAIN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct job_spec;

/* Find or make this node's cgroup, kill what an earlier incarnation
 * left, start the watchdog.  Never fails the node: without a cgroup,
 * process groups do. */
void	contain_init(const char *state_dir, const char *node);
/* What a run may use at most (0: no bound). */
struct contain_bounds {
	int64_t	procs;		/* processes and threads: pids.max */
	int64_t	memory_bytes;	/* memory.max */
};
/*
 * A run begins: the cgroup its child is born in (job.h; "" if runs
 * have no cgroup), into path.  Its cgroup gets b
 * (pids.max, memory.max) where the host has the controllers; else spec
 * gets rlimits: RLIMIT_NPROC, which counts the run user's processes (a
 * run's own where it has a slot user, its owner's all where it runs as
 * its owner), and RLIMIT_DATA.
 */
void	contain_prepare(const char *uuid, const struct contain_bounds *b,
	    struct job_spec *spec, char *path, size_t size);
/* Its process (group leader pid) runs: the watchdog knows of it. */
void	contain_started(const char *uuid, pid_t pid);
/* What a run's whole tree cost, from its cgroup: CPU (user + system)
 * and peak memory, -1 where it cannot tell (no cgroup, or no memory
 * controller delegated). */
struct contain_usage {
	int64_t	cpu_ms;
	int64_t	peak_kib;
};
/* It ended: what it cost into u (if not NULL), then kill what is left
 * of its tree, forget it.  Whether anything was left. */
int	contain_ended(const char *uuid, pid_t pid, struct contain_usage *u);
/* Whether nothing of the run is left, not even a dead process that
 * still counts against its user's process limit. */
int	contain_gone(const char *uuid);
/* Runs' cgroups get the cpu controller, where our parent passes it down
 * (cpu.max: throttle.h). */
void	contain_cpu_controller(void);
/* The run's cgroup directory into path: 0, or -1 (runs have none). */
int	contain_run_dir(const char *uuid, char *path, size_t size);
/* Is pid in the cgroup of one of this node's runs (0 without them)? */
int	contain_pid_in_run(pid_t pid);
/* Whether runs get cgroups (for the log and the tests). */
int	contain_cgroups(void);
/* How runs are contained, in a word for `volery nodes`: "cgroup" (with
 * "-pids", "-memory" when it holds those bounds; else rlimits do),
 * "subreaper" (process groups, and the node the runs' subreaper),
 * "process-group". */
const char *contain_how(void);
/* A clean stop, every run ended: the watchdog ends too. */
void	contain_shutdown(void);

#endif
