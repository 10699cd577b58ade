/*
 * cmd.h -- the subcommands of the one `volery` binary, one file each,
 * each described by a table entry: its options, how many operands it
 * takes, its summary.  One parser (cmd_parse) reads every entry, and
 * the usage lines and --help are printed from the same entries.
 * Exit status: 0 done, 1 it failed (an ERROR reply, a task that
 * Failed), 2 bad arguments, 3 the node could not be reached or the
 * connection to it was lost.
 */
#ifndef VOLERY_CMD_H
#define VOLERY_CMD_H

#include <stddef.h>
#include <stdint.h>

#define CMD_EXIT_FAILED	1
#define CMD_EXIT_USAGE	2
#define CMD_EXIT_NODE	3

#define CMD_OPTS_MAX	24
#define CMD_USES_MAX	64	/* options on one command line */

struct cmd_opt {
	int		 flag;		/* -f; for a long-only option, a key */
	const char	*name;		/* --name, or NULL */
	int		 long_only;	/* no -f */
	int		 nargs;		/* 0, 1, or 2 (-a UUID N) */
	int		 repeat;	/* may come again: every use is kept */
	const char	*args;		/* the usage's words for them */
};

/* The options given, in order, and the operands. */
struct cmd_use {
	int		 flag;
	char		*v[2];
};

struct cmd_args {
	struct cmd_use	 use[CMD_USES_MAX];
	int		 nuse;
	char		**operands;
	int		 noperands;
};

struct cmd_entry {
	const char	*name;
	const char	*summary;
	struct cmd_opt	 opts[CMD_OPTS_MAX];	/* up to flag 0 */
	int		 lower, upper;	/* operands; upper -1: no limit */
	const char	*operands;	/* the usage's words for them */
	int		 operands_first;	/* in the usage */
	int		(*exec)(const struct cmd_args *);
	/* Options end at the first operand, as for `volery run prog -x`
	 * (the rest is the program's), not only at "--". */
	int		 options_before_operands;
};

/* The -H option every subcommand that talks to a node takes. */
#define CMD_OPT_HOST	{ 'H', "host", 0, 1, 0, "host[:port]" }
/* What a task needs of a node (run, schedule): read by cmd_needs(). */
#define CMD_OPTS_NEEDS	{ 'c', "cores", 1, 1, 0, "N" }, \
	{ 'm', "mem", 1, 1, 0, "SIZE" }, \
	{ 'r', "requires", 1, 1, 0, "TAG[,TAG]..." }, \
	{ 'b', "begin", 1, 1, 0, "TIME" }, \
	{ 'D', "deadline", 1, 1, 0, "TIME" }, \
	{ 'X', "deadline-strict", 1, 0, 0, NULL }, \
	{ 'V', "verify", 1, 1, 0, "N" }, \
	{ 'T', "estimate", 1, 1, 0, "DURATION" }

extern const struct cmd_entry cmd_serve_entry;
extern const struct cmd_entry cmd_schedule_entry;
extern const struct cmd_entry cmd_submit_entry;
extern const struct cmd_entry cmd_watch_entry;
extern const struct cmd_entry cmd_cancel_entry;
extern const struct cmd_entry cmd_hold_entry;
extern const struct cmd_entry cmd_release_entry;
extern const struct cmd_entry cmd_prio_entry;
extern const struct cmd_entry cmd_tasks_entry;
extern const struct cmd_entry cmd_history_entry;
extern const struct cmd_entry cmd_nodes_entry;
extern const struct cmd_entry cmd_idle_entry;
extern const struct cmd_entry cmd_sleep_entry;
extern const struct cmd_entry cmd_log_entry;
extern const struct cmd_entry cmd_keygen_entry;
extern const struct cmd_entry cmd_id_entry;
extern const struct cmd_entry cmd_enroll_entry;
extern const struct cmd_entry cmd_revoke_entry;
extern const struct cmd_entry cmd_auth_entry;
extern const struct cmd_entry cmd_run_entry;
extern const struct cmd_entry cmd_output_entry;

struct conn;

/*
 * Read argv (argv[0] is the subcommand) by e's table into a; -1 with
 * the reason in err for an unknown option, a missing argument or the
 * wrong number of operands.
 */
int	cmd_parse(const struct cmd_entry *, int argc, char **argv,
	    struct cmd_args *, char *err, size_t errlen);
/* The last value of option flag, or NULL; how often it was given. */
const char *cmd_arg(const struct cmd_args *, int flag);
int	cmd_given(const struct cmd_args *, int flag);
/* "tasks [-H host[:port]] [--state STATE]", from the table. */
void	cmd_usage_line(const struct cmd_entry *, char *, size_t);

struct runreq_extra;
/* --cores, --mem, --requires into x (its array left empty); -1 (said
 * why) if one is bad. */
int	cmd_needs(const struct cmd_args *, struct runreq_extra *x);

/* A subcommand's failure (1) is of this kind (CMD_EXIT_*): main exits
 * with cmd_exit_status(rc).  The first kind set wins. */
void	cmd_exit_as(int status);
int	cmd_exit_status(int rc);
/* "volery: <message>" on stderr; returns 1. */
int	cmd_fail(const char *, ...) __attribute__((format(printf, 1, 2)));
/* The usage line on stderr; returns 2. */
int	cmd_usage(const struct cmd_entry *);
/* Connect to host (NULL: $VOLERY_HOST or the default), or say why. */
int	cmd_connect(struct conn *, const char *host);
/* One request, its reply line (not ERROR) in reply; or say why. */
int	cmd_ask(struct conn *, const char *request, char *reply, size_t);
/* One request on a connection of its own to -H's node, its reply line
 * not shown: 0, or 1 and why. */
int	cmd_ask_once(const struct cmd_args *, const char *request);
/* Ask "WORD uuid [more]" of every operand from the first-th, each a
 * uuid (else nothing is asked: 2), printing the replies if print; 1 if
 * any was refused. */
int	cmd_ask_each(const struct cmd_args *, const char *word,
	    const char *more, int first, int print);
/* A --begin or --deadline time (opt names it) as ms since the epoch;
 * -1 (said) if it is none. */
int	cmd_when(const char *opt, const char *text, int64_t *ms);
/* The forecast and deadline a SCHEDULED reply's rest (after the word)
 * carries: 1 and *at, *by if it does. */
int	cmd_scheduled_forecast(const char *rest, long long *at,
	    long long *by);
/* On stderr, the forecast against the deadline: "expected to end 07:40
 * (deadline 08:00)", "cannot meet 08:00: ...", or no forecast (at -1). */
void	cmd_tell_forecast(long long at, long long by);
/* With a deadline (ms since the epoch; 0 none), what an expected end
 * leaves of it: ", 12m to spare" or ", 3m late" ("": none, or no end). */
void	cmd_slack(int64_t deadline_ms, int64_t ends_ms, char *buf,
	    size_t size);
/* Send request (SCHEDULE, RUN) to host and print the uuid of its
 * "SCHEDULED <uuid>" reply; the exit status. */
int	cmd_schedule_print(const char *host, const char *request);
/* The same for n requests on one connection, a window of them in
 * flight; the uuids printed in order.  The first refused ends it. */
int	cmd_schedule_all(const char *host, char *const *requests, int n);
/* The JSON API's answer to uri ("/api/nodes"), through the client
 * protocol's API request, printed indented; the exit status. */
int	cmd_print_api(const char *host, const char *uri);
/* A multi-line reply to request, each line to fn, up to "."; or say
 * why. */
int	cmd_ask_lines(struct conn *, const char *request,
	    void (*fn)(const char *, void *), void *);

#endif
