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
extern const struct cmd_entry cmd_idle_entry;

/* "volery: <message>" on stderr; returns 1. */
int	cmd_fail(const char *, ...) __attribute__((format(printf, 1, 2)));
/* The usage line on stderr; returns 2. */
int	cmd_usage(const struct cmd_entry *);

#endif
