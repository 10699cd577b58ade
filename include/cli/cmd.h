/*
 * cmd.h -- the subcommands of the one `volery` binary, one file each.
 * Exit status: 0 done, 1 it failed (node unreachable, ERROR reply, a
 * task that Failed), 2 bad arguments.
 */
#ifndef VOLERY_CMD_H
#define VOLERY_CMD_H

struct cmd_entry {
	const char	*name;
	const char	*usage;
	const char	*summary;
	int		(*exec)(int, char **);
};

extern const struct cmd_entry cmd_serve_entry;
extern const struct cmd_entry cmd_schedule_entry;
extern const struct cmd_entry cmd_submit_entry;
extern const struct cmd_entry cmd_watch_entry;
extern const struct cmd_entry cmd_cancel_entry;
extern const struct cmd_entry cmd_tasks_entry;
extern const struct cmd_entry cmd_nodes_entry;
extern const struct cmd_entry cmd_idle_entry;
extern const struct cmd_entry cmd_log_entry;

struct conn;

/* "volery: <message>" on stderr; returns 1. */
int	cmd_fail(const char *, ...) __attribute__((format(printf, 1, 2)));
/* The usage line on stderr; returns 2. */
int	cmd_usage(const struct cmd_entry *);
/* Connect to host (NULL: $VOLERY_HOST or the default), or say why. */
int	cmd_connect(struct conn *, const char *host);
/* One request, its reply line (not ERROR) in reply; or say why. */
int	cmd_ask(struct conn *, const char *request, char *reply, size_t);
/* A multi-line reply to request, each line to fn, up to "."; or say
 * why. */
int	cmd_ask_lines(struct conn *, const char *request,
	    void (*fn)(const char *, void *), void *);

#endif
