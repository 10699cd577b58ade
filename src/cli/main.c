/*
 * main.c -- dispatch `volery <subcommand>`.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static const struct cmd_entry *commands[] = {
	&cmd_serve_entry,
	&cmd_idle_entry,
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

int
cmd_fail(const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "volery: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return 1;
}

int
cmd_usage(const struct cmd_entry *e)
{
	fprintf(stderr, "usage: volery %s\n", e->usage);
	return 2;
}

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
	for (i = 0; i < NCOMMANDS; i++) {
		if (strcmp(argv[1], commands[i]->name) != 0)
			continue;
		if (argc == 3 && (strcmp(argv[2], "--help") == 0 ||
		    strcmp(argv[2], "-h") == 0)) {
			printf("usage: volery %s\n%s\nSee volery(1).\n",
			    commands[i]->usage, commands[i]->summary);
			return 0;
		}
		return commands[i]->exec(argc - 1, argv + 1);
	}
	fprintf(stderr, "volery: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
