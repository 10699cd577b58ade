/*
 * req-ident.c -- the requests about node identities (identity.h):
 * PEERKEY, a certified peer's public key (what `volery revoke` needs to
 * name), and REVOKE, an admin's revocation handed in, kept and spread;
 * CLEAR, an admin's word that this node may take tasks again.
 */
#include <stdio.h>
#include <string.h>

#include "clients.h"
#include "clock.h"
#include "identity.h"
#include "log.h"
#include "node.h"
#include "peers.h"
#include "reqs.h"
#include "requests.h"
#include "service.h"
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

/* CLEAR: an admin ends this node's quarantine (retry.h).  Another
 * node's is ended on that node: its own admin's word. */
void
req_clear(struct client *c, const struct client_req *req)
{
	const struct requests_env *e = req_env();

	if (!service_is_admin(client_user(c))) {
		client_replyf(c, "ERROR only an admin (root, the operator, "
		    "<admins>) may clear a quarantine\n");
		return;
	}
	if (strcmp(req->peer_name, e->name) != 0) {
		client_replyf(c, "ERROR this node is %s: clear %s on that "
		    "node (volery nodes --clear %s -H its client address)\n",
		    e->name, req->peer_name, req->peer_name);
		return;
	}
	if (node_quarantine_clear(e->core, clock_node_ms()) == -1) {
		client_replyf(c, "ERROR %s is not quarantined\n", e->name);
		return;
	}
	log_warnx("quarantine of %s cleared by %s", e->name,
	    client_user(c));
	client_replyf(c, "CLEARED %s\n", e->name);
}
