/*
 * cmd-auth.c -- `volery auth [-k KEYFILE] CHALLENGE`: the line that
 * answers a node's CHALLENGE, for an operator talking to a node on
 * another host with nc (the subcommands answer by themselves).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "conn.h"
#include "keys.h"
#include "seal.h"

static int
cmd_auth_exec(const struct cmd_args *a)
{
	const char	*path = cmd_arg(a, 'k'), *challenge = a->operands[0];
	uint8_t		 key[SEAL_KEY_BYTES];
	char		 err[512], answer[AUTH_HEX_LEN + 1];

	if (path == NULL)
		path = getenv("VOLERY_OPERATOR_KEY");
	if (path == NULL || *path == '\0')
		path = CONN_OPERATOR_KEY;
	if (strspn(challenge, "0123456789abcdef") != strlen(challenge) ||
	    strlen(challenge) != 32)
		return 2 * cmd_fail("%s is not a challenge (32 hex digits, from "
		    "the node's CHALLENGE line)", challenge);
	if (keys_read(path, key, err, sizeof err) == -1)
		return cmd_fail("%s", err);
	seal_auth_answer(key, challenge, answer);
	printf("AUTH %s\n", answer);
	return 0;
}

const struct cmd_entry cmd_auth_entry = {
	"auth", "print the AUTH line that answers a node's CHALLENGE, with the "
	"operator key (-k, $VOLERY_OPERATOR_KEY or " CONN_OPERATOR_KEY ")",
	{ { 'k', "key", 0, 1, 0, "KEYFILE" } }, 1, 1, "CHALLENGE", 0,
	cmd_auth_exec, 0,
};
