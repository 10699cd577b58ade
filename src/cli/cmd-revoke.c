/*
 * cmd-revoke.c -- `volery revoke -k ADMIN.key NODE [PUBLIC_KEY]`: the
 * admin withdraws a node's certificate.  The revocation, signed with the
 * admin key, goes to the local node, which keeps it and tells every
 * other (and every node that joins later): the node's datagrams are
 * dropped from then on.  Without PUBLIC_KEY, the local node says which
 * key it knows the node by.
 */
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "clock.h"
#include "cmd.h"
#include "conn.h"
#include "identity.h"
#include "idfiles.h"

static int
cmd_revoke_exec(const struct cmd_args *a)
{
	struct ident_revoke	 r;
	struct conn		 c;
	uint8_t			 admin_pk[IDENT_PK_BYTES], sk[64];
	char			 req[CLIENT_LINE_MAX], reply[CLIENT_LINE_MAX];
	char			 line[IDENT_TEXT_MAX], pk[128], err[512];
	const char		*node = a->operands[0];
	int			 has_secret, rc;

	if (sodium_init() == -1 || cmd_arg(a, 'k') == NULL ||
	    idfiles_admin_read(cmd_arg(a, 'k'), admin_pk, sk, &has_secret,
	    err, sizeof err) == -1 || !has_secret) {
		sodium_memzero(sk, sizeof sk);
		return cmd_fail("revoke: -k ADMIN_KEY, the admin's secret key "
		    "(`volery keygen --admin`)");
	}
	if (cmd_connect(&c, cmd_arg(a, 'H')) == -1)
		return 1;
	if (a->noperands == 2)
		snprintf(pk, sizeof pk, "%s", a->operands[1]);
	else {
		snprintf(req, sizeof req, "PEERKEY %s", node);
		if (cmd_ask(&c, req, reply, sizeof reply) == -1 ||
		    sscanf(reply, "PEERKEY %*s %127s", pk) != 1) {
			conn_close(&c);
			return 1;
		}
	}
	memset(&r, 0, sizeof r);
	snprintf(r.name, sizeof r.name, "%s", node);
	if (strlen(node) > NAME_MAXLEN || ident_pk_parse(pk, r.pk) == -1) {
		conn_close(&c);
		return cmd_fail("revoke: %.64s is not a public key", pk);
	}
	r.stamp_ms = clock_wall_ms();
	ident_revoke_sign(&r, sk);
	sodium_memzero(sk, sizeof sk);
	ident_revoke_format(&r, line, sizeof line);
	/* The node rebuilds the line: "REVOKE" and the words after its
	 * first. */
	snprintf(req, sizeof req, "REVOKE %s", strchr(line, ' ') + 1);
	rc = cmd_ask(&c, req, reply, sizeof reply);
	conn_close(&c);
	if (rc == -1)
		return 1;
	printf("%s\n", line);
	return 0;
}

const struct cmd_entry cmd_revoke_entry = {
	"revoke", "withdraw a node's certificate (signed with the admin key; "
	"every node drops its datagrams)",
	{ { 'k', "admin-key", 0, 1, 0, "ADMIN_KEY" }, CMD_OPT_HOST }, 1, 2,
	"NODE [PUBLIC_KEY]", 0, cmd_revoke_exec, 0,
};
