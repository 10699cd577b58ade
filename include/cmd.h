/*
 * cmd.h -- the subcommands of the one `volery` binary, one file each.
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

#endif
