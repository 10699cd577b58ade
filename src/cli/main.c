/*
 * main.c -- dispatch `volery <subcommand>`.
 */
#include <stdarg.h>
#include <stdio.h>
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
