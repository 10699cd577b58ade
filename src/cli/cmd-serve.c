/*
 * cmd-serve.c -- `volery serve`: run a node in the foreground.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "config.h"
#include "identity.h"
#include "keys.h"
#include "runas.h"
#include "server.h"

static int
cmd_serve_exec(const struct cmd_args *a)
{
	static struct config	cfg;
	struct keyring		ring;
	struct runas		user;
	const char		*file = cmd_arg(a, 'c');
	char			 err[8192], warn[256];
	int			 check_only = cmd_given(a, 'n'), echo;

	echo = !cmd_given(a, 'q');
	config_default(&cfg);
	if (file != NULL && config_load(&cfg, file, err, sizeof err) == -1) {
		fprintf(stderr, "%s\nvolery: configuration %s has errors; "
		    "not starting\n", err, file);
		return 1;
	}
	if (check_only) {
		/* The keys and the run user too: a node that would refuse
		 * to start fails the check (a loopback node's own key is
		 * made at start). */
		if (keys_load(&cfg, &ring, NULL, 0, err, sizeof err) == -1 ||
		    identity_config_check(&cfg, &ring, err, sizeof err) ==
		    -1 || runas_resolve(cfg.run_as, &user, warn, sizeof warn, err,
		    sizeof err) == -1) {
			fprintf(stderr, "volery: %s\n", err);
			return 1;
		}
		runas_free(&user);
		if (warn[0] != '\0')
			fprintf(stderr, "volery: warning: %s\n", warn);
		printf("configuration %s OK\n", file != NULL ? file :
		    "(built-in)");
		return 0;
	}
	return server_run(&cfg, echo);
}

const struct cmd_entry cmd_serve_entry = {
	"serve", "run a node (-n: check the config and exit; -q: no console "
	"log)",
	{ { 'c', "config", 0, 1, 0, "config.xml" },
	  { 'n', NULL, 0, 0, 0, NULL },
	  { 'q', NULL, 0, 0, 0, NULL } }, 0, 0, NULL, 0,
	cmd_serve_exec, 0,
};
