/*
 * probe.h -- what the idle probes read, turned into readings for the
 * volunteer policy (volunteer.h).  Pure: the shell (src/sys/idle.c) reads
 * /proc, stats the input devices and runs the commands; here are only
 * the parsers and the arithmetic, so they can be tested and fuzzed.
 */
#ifndef VOLERY_PROBE_H
#define VOLERY_PROBE_H

#include <stddef.h>
#include <stdint.h>

/* The host's CPU time so far, in clock ticks of all CPUs together. */
struct cpu_sample {
	uint64_t	busy;
	uint64_t	total;
};

/* One process, from /proc/PID/stat. */
struct pid_sample {
	int		pid;
	char		state;		/* R, S, T, Z, ... */
	int		pgrp;
	uint64_t	ticks;		/* utime+stime+cutime+cstime */
};

/* What logind says of the user sessions (loginctl show-session). */
struct logind_info {
	int		sessions;	/* of class user */
	int		idle;		/* of those, IdleHint=yes */
	int		locked;		/* of those, LockedHint=yes (not idle) */
	int64_t		idle_since_ms;	/* the latest IdleSinceHint */
};

/* The "cpu" line of /proc/stat; -1 if there is none. */
int	probe_parse_cpu(const char *text, size_t len, struct cpu_sample *);
/* A /proc/PID/stat line; -1 if it is not one. */
int	probe_parse_pid(const char *text, size_t len, struct pid_sample *);
/*
 * CPU busy share in percent between two samples, not counting own_ticks
 * (our tasks' CPU in that time); -1 if the samples say nothing.
 */
int	probe_cpu_percent(const struct cpu_sample *prev,
	    const struct cpu_sample *cur, uint64_t own_ticks);
/* An idle_command's output: idle seconds (a number, maybe with a
 * fraction); -1 if the output is not that. */
int64_t	probe_parse_idle_seconds(const char *text, size_t len);
/* The Key=Value blocks of loginctl show-session; -1 if malformed. */
int	probe_parse_logind(const char *text, size_t len,
	    struct logind_info *);
/*
 * logind's vote: seconds since every user session went idle or locked,
 * or -1 (no vote: no session, or one that is neither).  A lock has no
 * time in logind; *locked_since_ms keeps when we first saw it.
 */
int64_t	probe_logind_idle(const struct logind_info *, int64_t now_ms,
	    int64_t *locked_since_ms);
/*
 * Seconds since the last input, from votes (-1: that source knows
 * nothing): the latest activity any source saw wins, because sources
 * fail by missing input (a USB keyboard leaves no atime), not by
 * inventing it.  -1 if no source knows.
 */
int64_t	probe_input_idle(const int64_t *votes, int n);

#endif
