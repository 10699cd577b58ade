/*
 * cmd-keygen.c -- `volery keygen FILE`: a new cluster key (32 random
 * bytes from libsodium, base64) in FILE, readable by its owner only.
 * Every node of a pool names the same file in its <keyring>.
 * `volery keygen --admin FILE`: the admin's signing key (identity.h) in
 * FILE, its public half in FILE.pub.
 */
#include <stdio.h>

#include "cmd.h"
#include "identity.h"
#include "idfiles.h"
#include "keys.h"

static int
cmd_keygen_exec(const struct cmd_args *a)
{
	char	err[512];

	if (cmd_given(a, 'a')) {
		if (idfiles_admin_generate(a->operands[0], err,
		    sizeof err) == -1)
			return cmd_fail("%s", err);
		printf("%s: a new admin key; keep it on the admin's host only "
		    "(volery enroll, volery revoke)\n%s.pub: its public key; "
		    "name it in every node's <admin_key>\n", a->operands[0],
		    a->operands[0]);
		return 0;
	}
	if (keys_generate(a->operands[0], err, sizeof err) == -1)
		return cmd_fail("%s", err);
	printf("%s: a new cluster key; copy it (mode 600) to every node and "
	    "name it in <keyring>\n", a->operands[0]);
	return 0;
}

const struct cmd_entry cmd_keygen_entry = {
	"keygen", "write a new cluster key to FILE (mode 600; never "
	"overwrites; --admin: an admin key, and FILE.pub)",
	{ { 'a', "admin", 0, 0, 0, NULL } }, 1, 1, "FILE", 0,
	cmd_keygen_exec, 0,
};
