/*
 * req-ident.c -- the requests about node identities (identity.h):
 * PEERKEY, a certified peer's public key (what `volery revoke` needs to
 * name), and REVOKE, an admin's revocation handed in, kept and spread.
 */
#include <stdio.h>

#include "clients.h"
#include "identity.h"
#include "peers.h"
#include "reqs.h"
#include "wire.h"

void
req_peerkey(struct client *c, const struct client_req *req)
{
	char	pk[IDENT_PK_TEXT];

	if (identity_peer_key(req->peer_name, pk) == -1)
		client_replyf(c, "ERROR no certified node %s heard here\n",
		    req->peer_name);
	else
		client_replyf(c, "PEERKEY %s %s\n", req->peer_name, pk);
}

void
req_revoke(struct client *c, const struct client_req *req)
{
	char	line[IDENT_TEXT_MAX], err[256];
	int	rc;

	snprintf(line, sizeof line, "volery-revoke1 %s %s %s %s",
	    req->revoke[0], req->revoke[1], req->revoke[2], req->revoke[3]);
	if ((rc = identity_revoke(line, err, sizeof err)) == -1) {
		client_replyf(c, "ERROR %s\n", err);
		return;
	}
	if (rc == 1)
		peers_revoke_spread(line);
	client_replyf(c, "REVOKED %s\n", req->revoke[0]);
}
