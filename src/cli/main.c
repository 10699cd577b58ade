/*
 * main.c -- dispatch `volery <subcommand>`.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "conn.h"

static const struct cmd_entry *commands[] = {
	&cmd_schedule_entry,
	&cmd_submit_entry,
	&cmd_watch_entry,
	&cmd_cancel_entry,
	&cmd_tasks_entry,
	&cmd_nodes_entry,
	&cmd_log_entry,
	&cmd_idle_entry,
	&cmd_serve_entry,
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

int
cmd_connect(struct conn *c, const char *host)
{
	char	err[512];

	if (conn_open(c, host, err, sizeof err) == -1)
		return cmd_fail("%s", err) * -1;
	return 0;
}

int
cmd_ask(struct conn *c, const char *request, char *reply, size_t size)
{
	char	err[CLIENT_LINE_MAX + 64];

	if (conn_ask(c, request, reply, size, err, sizeof err) == -1)
		return cmd_fail("%s", err) * -1;
	return 0;
}

int
cmd_ask_lines(struct conn *c, const char *request,
    void (*fn)(const char *, void *), void *arg)
{
	char	line[CLIENT_LINE_MAX + 2], err[CLIENT_LINE_MAX + 64];
	int	rc, first = 1;

	snprintf(line, sizeof line, "%s\n", request);
	if (conn_send(c, line, err, sizeof err) == -1)
		return cmd_fail("%s", err) * -1;
	for (;;) {
		rc = conn_line(c, line, sizeof line, 10000, err, sizeof err);
		if (rc == 0)
			return cmd_fail("%s: no reply", c->where) * -1;
		if (rc < 0)
			return cmd_fail("%s", err) * -1;
		if (strncmp(line, "PROGRESS ", 9) == 0)
			continue;
		if (first && strncmp(line, "ERROR", 5) == 0)
			return cmd_fail("%s", line[5] == ' ' ? line + 6 :
			    line) * -1;
		first = 0;
		if (strcmp(line, ".") == 0)
			return 0;
		fn(line, arg);
	}
}

static void
usage(FILE *f)
{
	size_t	i;

	fprintf(f, "usage: volery [-H host[:port]] <command> [options]\n\n"
	    "commands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-10s %s\n      volery %s\n", commands[i]->name,
		    commands[i]->summary, commands[i]->usage);
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
