/*
 * main.c -- dispatch `volery [-H host] <subcommand>`: the table of
 * subcommands; each one's arguments are read by cmd_parse() (cmd.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "conn.h"

static const struct cmd_entry *commands[] = {
	&cmd_run_entry,
	&cmd_output_entry,
	&cmd_schedule_entry,
	&cmd_submit_entry,
	&cmd_watch_entry,
	&cmd_cancel_entry,
	&cmd_hold_entry,
	&cmd_release_entry,
	&cmd_prio_entry,
	&cmd_tasks_entry,
	&cmd_history_entry,
	&cmd_nodes_entry,
	&cmd_log_entry,
	&cmd_idle_entry,
	&cmd_sleep_entry,
	&cmd_serve_entry,
	&cmd_keygen_entry,
	&cmd_id_entry,
	&cmd_enroll_entry,
	&cmd_revoke_entry,
	&cmd_auth_entry,
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void
usage(FILE *f)
{
	char	line[512];
	size_t	i;

	fprintf(f, "usage: volery [-H host[:port]] <command> [options]\n"
	    "       volery --version\n\n"
	    "commands:\n");
	for (i = 0; i < NCOMMANDS; i++) {
		cmd_usage_line(commands[i], line, sizeof line);
		fprintf(f, "  %-10s %s\n      volery %s\n", commands[i]->name,
		    commands[i]->summary, line);
	}
}

/*
 * Global options before the subcommand, as in git, docker and tmux:
 * `volery -H host:7610 tasks`.  -H is every subcommand's node; given
 * here it stands for $VOLERY_HOST, and a -H after the subcommand still
 * wins.  Returns how many arguments it took, or -1 with the bad one's
 * index in *bad.
 */
static int
global_options(int argc, char **argv, int *bad)
{
	int	k = 1;

	while (k < argc && argv[k][0] == '-' && strcmp(argv[k], "-h") != 0 &&
	    strcmp(argv[k], "--help") != 0) {
		const char *host = NULL;
		*bad = k;
		if (strcmp(argv[k], "-H") == 0 || strcmp(argv[k], "--host") == 0) {
			if (k + 1 >= argc)
				return -1;
			host = argv[k + 1];
			k += 2;
		} else if (strncmp(argv[k], "-H", 2) == 0) {
			host = argv[k] + 2;
			k++;
		} else if (strncmp(argv[k], "--host=", 7) == 0) {
			host = argv[k] + 7;
			k++;
		} else
			return -1;
		if (host[0] == '\0' || setenv("VOLERY_HOST", host, 1) == -1)
			return -1;
	}
	return k - 1;
}

int
main(int argc, char **argv)
{
	size_t	i;
	int	skip, bad = 1;

	if (argc == 2 && (strcmp(argv[1], "--version") == 0 ||
	    strcmp(argv[1], "-V") == 0)) {
		printf("volery %s\n", VOLERY_VERSION);
		return 0;
	}
	if ((skip = global_options(argc, argv, &bad)) == -1) {
		fprintf(stderr, "volery: bad option '%s'\n", argv[bad]);
		usage(stderr);
		return 2;
	}
	argv[skip] = argv[0];
	argc -= skip;
	argv += skip;
	if (argc < 2 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < NCOMMANDS; i++) {
		const struct cmd_entry *e = commands[i];
		static struct cmd_args a;
		char line[512];
		if (strcmp(argv[1], e->name) != 0)
			continue;
		if (argc == 3 && (strcmp(argv[2], "--help") == 0 ||
		    strcmp(argv[2], "-h") == 0)) {
			cmd_usage_line(e, line, sizeof line);
			printf("usage: volery %s\n%s\nSee volery(1).\n", line,
			    e->summary);
			return 0;
		}
		if (cmd_parse(e, argc - 1, argv + 1, &a, line,
		    sizeof line) == -1) {
			fprintf(stderr, "volery %s: %s\n", e->name, line);
			return cmd_usage(e);
		}
		return cmd_exit_status(e->exec(&a));
	}
	fprintf(stderr, "volery: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
