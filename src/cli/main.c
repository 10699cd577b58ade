/*
 * main.c -- dispatch `volery <subcommand>`.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static const struct cmd_entry *commands[] = {
	&cmd_serve_entry,
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void
usage(FILE *f)
{
	size_t	i;

	fprintf(f, "usage: volery <command> [options]\n\ncommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-10s %s\n      volery %s\n", commands[i]->name,
		    commands[i]->summary, commands[i]->usage);
}

int
main(int argc, char **argv)
{
	size_t	i;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(argv[1], commands[i]->name) == 0)
			return commands[i]->exec(argc - 1, argv + 1);
	fprintf(stderr, "volery: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
