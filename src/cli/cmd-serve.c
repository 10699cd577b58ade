/*
 * cmd-serve.c -- `volery serve`: run a node in the foreground.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "config.h"
#include "server.h"

static int
cmd_serve_exec(int argc, char **argv)
{
	static struct config	cfg;
	const char		*file = NULL;
	char			 err[8192];
	int			 ch, check_only = 0, echo = 1;

	while ((ch = getopt(argc, argv, "c:nq")) != -1) {
		switch (ch) {
		case 'c':
			file = optarg;
			break;
		case 'n':
			check_only = 1;
			break;
		case 'q':
			echo = 0;
			break;
		default:
			return cmd_usage(&cmd_serve_entry);
		}
	}
	if (optind != argc)
		return cmd_usage(&cmd_serve_entry);
	config_default(&cfg);
	if (file != NULL && config_load(&cfg, file, err, sizeof err) == -1) {
		fprintf(stderr, "%s\nvolery: configuration %s has errors; "
		    "not starting\n", err, file);
		return 1;
	}
	if (check_only) {
		printf("configuration %s OK\n", file != NULL ? file :
		    "(built-in)");
		return 0;
	}
	return server_run(&cfg, echo);
}

const struct cmd_entry cmd_serve_entry = {
	"serve", "serve [-c config.xml] [-n] [-q]",
	"run a node (-n: check the config and exit; -q: no console log)",
	cmd_serve_exec,
};
